/**
 * @module What SQLite needs for upstream OAuth when several processes share one file
 * (`codemux serve`, a client-started `codemux stdio`, `code exec`): a refresh lock that holds
 * across processes (a lease row), and change notices for their writes (`PRAGMA data_version`).
 */
import { randomUUID } from 'node:crypto';
import type { SqliteDatabase } from './sqlite-database.ts';

/** How long a lease holds if its process dies holding it; a refresh is bounded well below it. */
const LEASE_MS = 60_000;
/** How often a waiter tries again, and how often other processes' commits are looked for. */
const RETRY_MS = 50;
const POLL_MS = 1_000;

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
 * comparing each row's `updated_at` once `data_version` moved); polls only while someone listens.
 */
export function sqliteOAuthChanges(db: SqliteDatabase) {
  const rows = db.prepare('SELECT server, updated_at FROM oauth_credentials');
  const listeners = new Set<(server: string) => void>();
  const snapshot = () =>
    new Map(
      (rows.all() as Array<{ server: string; updated_at: string }>).map((r) => [
        r.server,
        r.updated_at,
      ]),
    );
  let seen = { version: 0, rows: new Map<string, string>() };
  let poller: NodeJS.Timeout | undefined;
  const poll = () => {
    if (!db.open) return;
    const version = db.pragma('data_version', { simple: true }) as number;
    if (version === seen.version) return;
    const now = snapshot();
    const changed = new Set<string>();
    for (const [server, at] of now) if (seen.rows.get(server) !== at) changed.add(server);
    for (const server of seen.rows.keys()) if (!now.has(server)) changed.add(server);
    seen = { version, rows: now };
    for (const server of changed) for (const listener of listeners) listener(server);
  };
  return {
    /** This process wrote: its own writes are not news (and data_version does not move for them). */
    noteOwnWrite() {
      if (listeners.size > 0) seen = { ...seen, rows: snapshot() };
    },
    onChange(listener: (server: string) => void): () => void {
      if (listeners.size === 0) {
        seen = { version: db.pragma('data_version', { simple: true }) as number, rows: snapshot() };
        poller = setInterval(poll, POLL_MS);
        poller.unref();
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) clearInterval(poller);
      };
    },
  };
}
