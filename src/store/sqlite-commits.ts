/**
 * @module Commits other connections made to an SQLite file (the CLI, a client-started
 * `codemux stdio`, another process): `PRAGMA data_version` moves for them, never for this
 * connection's own writes. Polled only while someone listens.
 */
import type { SqliteDatabase } from './sqlite-database.ts';

/** How often other processes' commits are looked for. */
const POLL_MS = 1_000;

export interface SqliteCommits {
  /** Calls `listener` after another connection committed; returns the unsubscribe. */
  onCommit(listener: () => void): () => void;
  close(): void;
}

export function sqliteCommits(db: SqliteDatabase): SqliteCommits {
  const listeners = new Set<() => void>();
  let seen = db.pragma('data_version', { simple: true }) as number;
  let poller: NodeJS.Timeout | undefined;
  const poll = () => {
    if (!db.open) return;
    const now = db.pragma('data_version', { simple: true }) as number;
    if (now === seen) return;
    seen = now;
    for (const listener of listeners) listener();
  };
  const stop = () => {
    if (poller) clearInterval(poller);
    poller = undefined;
  };
  return {
    onCommit(listener) {
      listeners.add(listener);
      if (!poller) {
        poller = setInterval(poll, POLL_MS);
        poller.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    close() {
      listeners.clear();
      stop();
    },
  };
}
