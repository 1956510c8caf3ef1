/**
 * @module `cluster_max_concurrent_requests` with PostgreSQL advisory locks: slot i of a server
 * is the session-level lock (hash(server), i), held on a connection checked out for the call,
 * so a crashed instance's slots are freed when its connections close. A call that finds every
 * slot taken waits (polling, and woken at once by a local release) within its deadline, and
 * counts against the server's `queue_size` meanwhile.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { guardClient } from './pg-database.ts';

/** Retry period for a slot held by another instance (a local release wakes waiters at once). */
const SLOT_RETRY_MS = 25;
const CONNECT_TIMEOUT_MS = 5_000;
/** Connections that may hold slots at once in this instance. */
const MAX_SLOT_CONNECTIONS = 64;
/** On close, how long held slots may take to be released before the pool is left to die with the process. */
const CLOSE_WAIT_MS = 2_000;

/** Shape of upstream's ClusterSlots contract (the store does not import upstream). */
type Acquired =
  | { ok: true; release: () => void }
  | { ok: false; reason: 'queue_full' | 'aborted' | 'unavailable'; message: string };

export interface PgClusterSlots {
  acquire(
    server: string,
    limit: number,
    options: { queueSize: number; signal?: AbortSignal },
  ): Promise<Acquired>;
  close(): Promise<void>;
}

/** The first key of a server's slot locks: 32 bits of its name's SHA-256. */
export function serverLockKey(server: string): number {
  return createHash('sha256').update(`codemux-slot:${server}`).digest().readInt32BE(0);
}

export function pgClusterSlots(url: string): PgClusterSlots {
  const pool = new pg.Pool({
    connectionString: url,
    max: MAX_SLOT_CONNECTIONS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  pool.on('error', () => {});
  const waiting = new Map<string, number>();
  const wakers = new Set<() => void>();
  let closed = false;

  /** One pass over the slots from a random start; the connection holding the lock, or undefined. */
  const tryOnce = async (key: number, limit: number) => {
    // A held connection the server ends (a restart, a kill) must not crash the process; the
    // slot is freed with it and the next unlock fails, which releases it as broken.
    const client = guardClient(await pool.connect());
    try {
      const start = Math.floor(Math.random() * limit);
      for (let i = 0; i < limit; i++) {
        const slot = (start + i) % limit;
        const { rows } = await client.query<{ ok: boolean }>(
          'SELECT pg_try_advisory_lock($1, $2) AS ok',
          [key, slot],
        );
        if (rows[0]?.ok) return { client, slot };
      }
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    client.release();
    return undefined;
  };

  const releaser = (client: pg.PoolClient, key: number, slot: number) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      client
        .query('SELECT pg_advisory_unlock($1, $2)', [key, slot])
        .then(
          () => client.release(),
          // A connection whose unlock failed is destroyed: its locks go with it.
          (error: Error) => client.release(error),
        )
        .finally(() => {
          for (const wake of [...wakers]) wake();
        });
    };
  };

  return {
    async acquire(server, limit, { queueSize, signal }) {
      if (closed) return { ok: false, reason: 'unavailable', message: 'the database is closed' };
      const key = serverLockKey(server);
      let queued = false;
      try {
        for (;;) {
          if (signal?.aborted) return { ok: false, reason: 'aborted', message: 'aborted' };
          const held = await tryOnce(key, limit);
          if (held) return { ok: true, release: releaser(held.client, key, held.slot) };
          if (!queued) {
            if ((waiting.get(server) ?? 0) >= queueSize) {
              return {
                ok: false,
                reason: 'queue_full',
                message: `server '${server}' already has ${limit} calls in flight across the cluster (cluster_max_concurrent_requests) and ${queueSize} waiting here (queue_size)`,
              };
            }
            queued = true;
            waiting.set(server, (waiting.get(server) ?? 0) + 1);
          }
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              wakers.delete(done);
              signal?.removeEventListener('abort', done);
              resolve();
            };
            const timer = setTimeout(done, SLOT_RETRY_MS);
            wakers.add(done);
            signal?.addEventListener('abort', done, { once: true });
          });
        }
      } catch (error) {
        return {
          ok: false,
          reason: 'unavailable',
          message: `cannot take a cluster slot for server '${server}' (cluster_max_concurrent_requests): the database does not answer: ${(error as Error).message}`,
        };
      } finally {
        if (queued) waiting.set(server, (waiting.get(server) ?? 1) - 1);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const wake of [...wakers]) wake();
      // pool.end() waits for held slots; a call still holding one must not hold up a shutdown.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        pool.end().catch(() => {}),
        new Promise((r) => {
          timer = setTimeout(r, CLOSE_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
