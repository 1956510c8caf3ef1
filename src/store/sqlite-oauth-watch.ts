/**
 * @module What SQLite needs for upstream OAuth when several processes share one file
 * (`codemux serve`, a client-started `codemux stdio`, `code exec`): a refresh lock that holds
 * across processes (a lease row), and change notices for their writes (`PRAGMA data_version`).
 */
import { randomUUID } from 'node:crypto';
import { sqliteCommits } from './sqlite-commits.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

/** How long a lease holds if its process dies holding it; a refresh is bounded well below it. */
const LEASE_MS = 60_000;
/** How often a waiter tries again. */
const RETRY_MS = 50;

/** Runs `fn` holding `server`'s lease; a waiter tries again every RETRY_MS. */
export function sqliteRefreshLease(db: SqliteDatabase) {
  const take = db.prepare(
    `INSERT INTO oauth_refresh_leases (server, owner, until) VALUES (?, ?, ?)
     ON CONFLICT (server) DO UPDATE SET owner = excluded.owner, until = excluded.until
     WHERE oauth_refresh_leases.until < ?`,
  );
  const give = db.prepare('DELETE FROM oauth_refresh_leases WHERE server = ? AND owner = ?');
  return async <T>(server: string, fn: () => Promise<T>): Promise<T> => {
    const owner = randomUUID();
    for (;;) {
      const now = Date.now();
      const taken = take.run(
        server,
        owner,
        new Date(now + LEASE_MS).toISOString(),
        new Date(now).toISOString(),
      ).changes;
      if (taken > 0) break;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    try {
      return await fn();
    } finally {
      if (db.open) give.run(server, owner);
    }
  };
}

/**
 * Calls each listener with the servers whose credentials another process wrote (found by
 * comparing each row's `updated_at` after another connection committed).
 */
export function sqliteOAuthChanges(db: SqliteDatabase) {
  const rows = db.prepare('SELECT server, updated_at FROM oauth_credentials');
  const commits = sqliteCommits(db);
  const listeners = new Set<(server: string) => void>();
  const snapshot = () =>
    new Map(
      (rows.all() as Array<{ server: string; updated_at: string }>).map((r) => [
        r.server,
        r.updated_at,
      ]),
    );
  let seen = new Map<string, string>();
  let stopWatching: (() => void) | undefined;
  const compare = () => {
    const now = snapshot();
    const changed = new Set<string>();
    for (const [server, at] of now) if (seen.get(server) !== at) changed.add(server);
    for (const server of seen.keys()) if (!now.has(server)) changed.add(server);
    seen = now;
    for (const server of changed) for (const listener of listeners) listener(server);
  };
  return {
    /** This process wrote: its own writes are not news (and data_version does not move for them). */
    noteOwnWrite() {
      if (listeners.size > 0) seen = snapshot();
    },
    onChange(listener: (server: string) => void): () => void {
      if (listeners.size === 0) {
        seen = snapshot();
        stopWatching = commits.onCommit(compare);
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stopWatching?.();
      };
    },
  };
}
