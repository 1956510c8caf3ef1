/**
 * @module The PostgreSQL database of `database_url`: a pool, the same numbered migrations as
 * SQLite (run under an advisory lock so instances starting together migrate once), and one
 * LISTEN connection that carries change notices between instances and reconnects by itself.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CodemuxError } from '../errors/index.ts';
import { MIGRATIONS } from './migrations.ts';

/** Channel of change notices; the payload is `{topic, origin}` JSON. */
const CHANNEL = 'codemux_changes';
/** Single-key advisory lock held while migrating (the two-key form used by cluster slots is a separate space). */
const MIGRATION_LOCK_KEY = 0x636d7578; // "cmux"
const CONNECT_TIMEOUT_MS = 5_000;
const POOL_SIZE = 10;
/** LISTEN reconnect backoff: 100 ms, doubling, at most 2 s (notices missed meanwhile are covered by a full reload). */
const LISTEN_RETRY_FIRST_MS = 100;
const LISTEN_RETRY_MAX_MS = 2_000;

export type ChangeTopic =
  | 'tokens'
  | 'code_tools'
  | 'activity'
  | 'tool_pins'
  | 'approvals'
  | 'held_runs'
  | 'execution_runs'
  | 'oauth';

/** Bytes of a notice's `data` at most (PostgreSQL's payload limit is 8000 bytes, with the envelope). */
export const NOTICE_DATA_MAX_BYTES = 7_000;

export interface PgDatabase {
  readonly url: string;
  readonly pool: pg.Pool;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Runs `body` in one transaction on one connection. */
  transaction<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /**
   * Tells every other instance that `topic` changed (sent on commit of nothing: at once),
   * with `data` (at most NOTICE_DATA_MAX_BYTES) when the topic carries some.
   */
  notify(topic: ChangeTopic, data?: string): Promise<void>;
  /** Calls `listener` for each change another instance announced, with its data; returns the unsubscribe. */
  onChange(topic: ChangeTopic, listener: (data?: string) => void): () => void;
  /** Calls `listener` when the LISTEN connection is lost (`up` false) and when it is back and listening (`up` true). */
  onListenState(listener: (up: boolean) => void): () => void;
  /** True while change notices arrive (the LISTEN connection is up). */
  listening(): boolean;
  close(): Promise<void>;
}

/** The URL with its password hidden, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

const guarded = new WeakSet<pg.ClientBase>();
/**
 * A connection checked out of a pool has no 'error' listener of the pool's: one the server ends
 * between two statements (a restart, an admin) would throw from an event emitter and end the
 * process. With this listener the next statement fails instead, and its caller handles that.
 */
export function guardClient<C extends pg.ClientBase>(client: C): C {
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on('error', () => {});
  }
  return client;
}

async function migrate(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT MAX(version) AS v FROM schema_migrations',
    );
    const current = rows[0]?.v ?? 0;
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query('BEGIN');
      try {
        for (const sql of migration.statements) await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
          migration.version,
          new Date().toISOString(),
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}

/**
 * Connects, migrates and starts listening. A database that cannot be reached is a
 * CodemuxError `DATABASE_UNAVAILABLE` whose message names `source` (where the URL came from).
 */
export async function openPgDatabase(url: string, source = 'database_url'): Promise<PgDatabase> {
  const origin = randomBytes(8).toString('hex');
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle connection the server closed must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  try {
    const client = guardClient(await pool.connect());
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw new CodemuxError(
      'DATABASE_UNAVAILABLE',
      `cannot use the PostgreSQL database of ${source} (${redactUrl(url)}): ${(error as Error).message || String(error)}; check that the server runs and the URL (host, port, user, password, database) is right`,
    );
  }

  const listeners = new Map<ChangeTopic, Set<(data?: string) => void>>();
  const stateListeners = new Set<(up: boolean) => void>();
  let closed = false;
  let up = false;
  let retryMs = LISTEN_RETRY_FIRST_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;

  const setUp = (next: boolean) => {
    if (up === next) return;
    up = next;
    for (const l of stateListeners) l(next);
  };
  const onNotice = (message: pg.Notification) => {
    // Any role on the database may NOTIFY this channel: a payload of another shape is ignored.
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.payload ?? '{}');
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const notice = parsed as { topic?: unknown; origin?: unknown; data?: unknown };
    if (notice.origin === origin || typeof notice.topic !== 'string') return;
    const data = typeof notice.data === 'string' ? notice.data : undefined;
    for (const l of listeners.get(notice.topic as ChangeTopic) ?? []) {
      try {
        l(data);
      } catch {
        // Called from pg's socket handler, where a throw would end the process: the listener
        // misses this notice instead.
      }
    }
  };
  const listen = async (): Promise<void> => {
    if (closed) return;
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    const lost = () => {
      if (listener !== client) return;
      listener = undefined;
      setUp(false);
      client.end().catch(() => {});
      scheduleListen();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', onNotice);
    listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      lost();
      return;
    }
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    retryMs = LISTEN_RETRY_FIRST_MS;
    setUp(true);
  };
  const scheduleListen = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void listen();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MAX_MS);
  };
  await listen();

  return {
    url,
    pool,
    query: (sql, params) => pool.query(sql, params),
    async transaction(body) {
      const client = guardClient(await pool.connect());
      // A connection whose ROLLBACK failed is broken: released with the error, the pool drops it.
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await body(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((e: Error) => {
          broken = e;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async notify(topic, data) {
      const payload = JSON.stringify({ topic, origin, ...(data === undefined ? {} : { data }) });
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
    },
    onChange(topic, l) {
      const set = listeners.get(topic) ?? new Set();
      listeners.set(topic, set);
      set.add(l);
      return () => set.delete(l);
    },
    onListenState(l) {
      stateListeners.add(l);
      return () => stateListeners.delete(l);
    },
    listening: () => up,
    async close() {
      if (closed) return;
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
