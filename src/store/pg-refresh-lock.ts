/**
 * @module The OAuth refresh lock across instances: a session-level PostgreSQL advisory lock
 * (REFRESH_LOCK_NAMESPACE, hash(server)) held on a pooled connection for the body's duration.
 * Within an instance, callers for one server queue in-process first, and few connections hold
 * or await such locks at once, so bodies (which use the same pool) always find a connection.
 */
import { createHash } from 'node:crypto';
import { semaphore, serialByKey } from './local-locks.ts';
import { guardClient, type PgDatabase } from './pg-database.ts';

/** First key of every refresh lock ("oaut"); cluster slots use (hash(server), slot) and migrations the one-key form. */
export const REFRESH_LOCK_NAMESPACE = 0x6f617574;
/** Pool connections that may hold or await refresh locks at once (the pool has 10). */
const REFRESH_LOCK_CONNECTIONS_MAX = 3;

/** The second key of a server's refresh lock: 32 bits of its name's SHA-256. */
export function refreshLockKey(server: string): number {
  return createHash('sha256').update(`codemux-oauth-refresh:${server}`).digest().readInt32BE(0);
}

/** `withRefreshLock` for the stores of one database. Not reentrant: `fn` must not take the same server's lock. */
export function pgRefreshLock(
  db: PgDatabase,
): <T>(server: string, fn: () => Promise<T>) => Promise<T> {
  const serial = serialByKey();
  const connections = semaphore(REFRESH_LOCK_CONNECTIONS_MAX);
  const holding = async <T>(server: string, fn: () => Promise<T>): Promise<T> => {
    const keys = [REFRESH_LOCK_NAMESPACE, refreshLockKey(server)];
    // A held connection the server ends must not crash the process; its lock ends with it.
    const client = guardClient(await db.pool.connect());
    try {
      await client.query('SELECT pg_advisory_lock($1, $2)', keys);
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    let broken: Error | undefined;
    try {
      return await fn();
    } finally {
      // A connection whose unlock failed is destroyed by the pool, and its lock with it.
      await client.query('SELECT pg_advisory_unlock($1, $2)', keys).catch((error: Error) => {
        broken = error;
      });
      client.release(broken);
    }
  };
  return (server, fn) => serial(server, () => connections(() => holding(server, fn)));
}
