/**
 * @module Commits that may skip their fsync: under WAL, `synchronous=NORMAL` is safe from
 * corruption and an application crash (a restart) loses nothing committed; only a power cut or
 * an OS crash may take back the last such commits. For writes whose loss then costs little
 * (history batches, a journal's answers and clock readings); every other write keeps the
 * connection's own setting.
 */
import type { SqliteDatabase } from './sqlite-database.ts';

/** Runs `write` with synchronous=NORMAL on `db`, then restores the connection's setting. */
export function relaxedCommits(db: SqliteDatabase): <T>(write: () => T) => T {
  const durable = db.pragma('synchronous', { simple: true }) as number;
  return (write) => {
    db.pragma('synchronous = NORMAL');
    try {
      return write();
    } finally {
      db.pragma(`synchronous = ${durable}`);
    }
  };
}
