import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle, until } from '../../test/helpers.ts';
import { type RunningPostgres, startPostgres } from '../../test/postgres.ts';
import { activityRecord, activityStoreContract } from './activity-store.contract.ts';
import { codeToolStoreContract } from './code-tool-store.contract.ts';
import { MIGRATIONS } from './migrations.ts';
import { pgClusterSlots } from './pg-cluster-slots.ts';
import { openPgDatabase } from './pg-database.ts';
import { openPgStore, type PgStore } from './pg-store.ts';
import { tokenStoreContract } from './token-store.contract.ts';

// A private server, not the run's shared one (test/shared-postgres.ts): a test here stops and
// restarts it, which would cut every other file's connections.
let server: RunningPostgres;
let databases = 0;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** A store on a database of its own. */
async function freshStore(): Promise<{ store: PgStore; url: string }> {
  const url = await server.database(`t${++databases}`);
  return { store: await openPgStore(url), url };
}
const opened = async () => {
  const { store } = await freshStore();
  return { store, dispose: () => store.close() };
};

tokenStoreContract('PostgreSQL', async () => {
  const { store, dispose } = await opened();
  return { tokens: store.tokens, dispose };
});
activityStoreContract('PostgreSQL', async () => {
  const { store, dispose } = await opened();
  return { activity: store.activity, dispose };
});
codeToolStoreContract('PostgreSQL', async () => {
  const { store, dispose } = await opened();
  return { codeTools: store.codeTools, dispose };
});

/** Polls `check` until it holds or `withinMs` passes. */
const eventually = (check: () => boolean, withinMs = 1_000): Promise<boolean> =>
  settle(
    async () => check(),
    (held) => held,
    withinMs,
    10,
  );

async function sql(url: string, text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

const settings = {
  description: '',
  code: '1',
  timeout_ms: 5000,
  memory_limit_mb: 128,
  enabled: true,
  allowed_servers: [],
};

describe('PostgreSQL across instances', () => {
  it('migrates once when two instances start together', async () => {
    const url = await server.database('together');
    const [a, b] = await Promise.all([openPgDatabase(url), openPgDatabase(url)]);
    await Promise.all([a.close(), b.close()]);
    const rows = await sql(url, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
  });

  it('sees a token made on one instance and refuses it on every instance once revoked', async () => {
    const { store: a, url } = await freshStore();
    const b = await openPgStore(url);
    try {
      const { token } = await a.tokens.create('ci', ['github']);
      expect(await eventually(() => b.tokens.verify(token)?.name === 'ci')).toBe(true);
      await a.tokens.revoke('ci');
      expect(a.tokens.verify(token)).toBeUndefined();
      expect(await eventually(() => b.tokens.verify(token) === undefined)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('refuses tokens while it cannot hear changes, and reloads them when it hears again', async () => {
    const { store: a, url } = await freshStore();
    const b = await openPgStore(url);
    try {
      const { token } = await a.tokens.create('ci', ['github']);
      const kept = await a.tokens.create('kept', ['github']);
      expect(await eventually(() => b.tokens.verify(token) !== undefined)).toBe(true);
      // Cut every LISTEN connection; a revoke made meanwhile sends a notice nobody hears.
      await sql(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
      );
      await sql(url, "DELETE FROM agent_tokens WHERE name = 'ci'");
      expect(await eventually(() => b.tokens.verify(kept.token) !== undefined, 5_000)).toBe(true);
      expect(b.tokens.verify(token)).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('survives a database restart: tokens refused while it is down, notices heard again after', async () => {
    const { store: a, url } = await freshStore();
    const b = await openPgStore(url);
    try {
      const { token } = await a.tokens.create('ci', ['github']);
      const other = await a.tokens.create('other', ['github']);
      expect(await eventually(() => b.tokens.verify(token) !== undefined)).toBe(true);
      const restarting = server.restart(1_500);
      // Down: notices cannot be heard, so no token passes.
      expect(await eventually(() => b.tokens.verify(token) === undefined, 1_500)).toBe(true);
      await restarting;
      // Back, listening again and reloaded: the token passes again...
      expect(await eventually(() => b.tokens.verify(token) !== undefined, 10_000)).toBe(true);
      // ...and a revoke made now reaches the other instance (LISTEN is back).
      await a.tokens.revoke('ci');
      expect(await eventually(() => b.tokens.verify(token) === undefined)).toBe(true);
      expect(b.tokens.verify(other.token)?.name).toBe('other');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('survives its connection being ended in the middle of a transaction', async () => {
    const url = await server.database('mid-transaction');
    const db = await openPgDatabase(url);
    try {
      const failed = db.transaction(async (client) => {
        const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
        // Between two statements the server ends this connection (a restart, an admin).
        await sql(
          url,
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'",
        );
        // Terminating only signals the backend: wait until it is gone.
        await until('the backend ended', async () =>
          (await sql(url, 'SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).length === 0
            ? true
            : undefined,
        );
        await client.query('SELECT 2');
      });
      await expect(failed).rejects.toThrow();
      // The pool hands out a working connection next.
      expect((await db.query('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
    } finally {
      await db.close();
    }
  });

  it('tells the other instances about code tool changes, not the one that made them', async () => {
    const { store: a, url } = await freshStore();
    const b = await openPgStore(url);
    try {
      let seenByA = 0;
      a.codeTools.onExternalChange(() => seenByA++);
      const seen = new Promise<void>((resolve) => b.codeTools.onExternalChange(resolve));
      await a.codeTools.create('fmt', settings);
      await seen;
      expect((await b.codeTools.get('fmt'))?.code).toBe('1');
      expect(seenByA).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("hands another instance's activity records to its live feed, in the order written", async () => {
    const { store: a, url } = await freshStore();
    const b = await openPgStore(url);
    try {
      const heard: string[] = [];
      const stop = b.activity.onRemoteInsert!((records) => heard.push(...records.map((r) => r.id)));
      let heardByA = 0;
      a.activity.onRemoteInsert!(() => heardByA++);
      // Over one notice's worth of ids: the batch is announced in several notices.
      const ids = Array.from({ length: 600 }, (_, i) => `01b${String(i).padStart(21, '0')}`);
      await a.activity.insert(ids.map((id) => activityRecord({ id })));
      expect(await eventually(() => heard.length === ids.length, 5_000)).toBe(true);
      expect(heard).toEqual(ids);
      expect(heardByA).toBe(0);
      stop();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('ignores notices of another shape on its channel (any role may NOTIFY)', async () => {
    const { store, url } = await freshStore();
    try {
      const heard: string[] = [];
      store.activity.onRemoteInsert!((records) => heard.push(...records.map((r) => r.id)));
      for (const payload of ['null', '[]', '"x"', '5', '{"topic": 5}', '{"topic": "activity"}'])
        await sql(url, 'SELECT pg_notify($1, $2)', ['codemux_changes', payload]);
      await sql(url, 'SELECT pg_notify($1, $2)', [
        'codemux_changes',
        JSON.stringify({ topic: 'activity', origin: 'elsewhere', data: 'no-such-id' }),
      ]);
      // Still alive and listening: a real change from another instance is heard.
      const other = await openPgStore(url);
      await other.activity.insert([activityRecord({ id: '01c000000000000000000001' })]);
      expect(await eventually(() => heard.includes('01c000000000000000000001'), 5_000)).toBe(true);
      await other.close();
    } finally {
      await store.close();
    }
  });

  it('exits with a message naming database_url when the database cannot be reached', async () => {
    const url = `postgres://u:secret@127.0.0.1:${server.port + 1}/none`;
    const error = await openPgStore(url).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect((error as Error).message).toContain('database_url');
    expect((error as Error).message).not.toContain('secret');
  });
});

describe('cluster slots (advisory locks)', () => {
  it.each([
    ['a call beyond the limit with no queue is refused', 0, 'queue_full'],
    ['a call beyond the limit whose execution ends is cancelled', 1, 'aborted'],
  ])('%s', async (_why, queueSize, reason) => {
    const url = await server.database(`slots${queueSize}`);
    const a = pgClusterSlots(url);
    const b = pgClusterSlots(url);
    try {
      const held = await Promise.all([
        a.acquire('s', 2, { queueSize }),
        b.acquire('s', 2, { queueSize }),
      ]);
      expect(held.every((h) => h.ok)).toBe(true);
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100);
      expect(await b.acquire('s', 2, { queueSize, signal: abort.signal })).toMatchObject({
        ok: false,
        reason,
      });
      for (const h of held) if (h.ok) h.release();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('gives a waiting call the slot another instance frees, and frees the slots of a dead instance', async () => {
    const url = await server.database('slots-dead');
    const a = pgClusterSlots(url);
    const b = pgClusterSlots(url);
    try {
      const first = await a.acquire('s', 1, { queueSize: 1 });
      expect(first.ok).toBe(true);
      const waiting = b.acquire('s', 1, { queueSize: 1 });
      if (first.ok) first.release();
      const second = await waiting;
      expect(second.ok).toBe(true);
      // The holder's connection dies (its instance crashed): the lock goes with it.
      await sql(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_locks JOIN pg_stat_activity USING (pid) WHERE locktype = 'advisory' AND pid <> pg_backend_pid()",
      );
      const third = await a.acquire('s', 1, { queueSize: 1 });
      expect(third.ok).toBe(true);
      if (third.ok) third.release();
      if (second.ok) second.release();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
