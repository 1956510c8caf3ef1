import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { activityStoreContract } from './activity-store.contract.ts';
import { MIGRATIONS } from './migrations.ts';
import { openStore } from './open-store.ts';
import { sqliteActivityStore } from './sqlite-activity-store.ts';
import { DATABASE_FILE, openSqliteDatabase } from './sqlite-database.ts';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-store-'));

activityStoreContract('SQLite', async () => {
  const dir = tempDir();
  const store = openStore(dir);
  return {
    activity: store.activity,
    async dispose() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite migrations', () => {
  it('migrates a database made before versioned migrations, keeping its tokens', async () => {
    const dir = tempDir();
    const old = new Database(path.join(dir, DATABASE_FILE));
    old.exec(
      'CREATE TABLE agent_tokens (name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, servers TEXT NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT)',
    );
    old.prepare("INSERT INTO agent_tokens VALUES ('ci', 'h', '[\"a\"]', '2026-01-01', NULL)").run();
    old.close();
    const store = openStore(dir);
    expect((await store.tokens.list()).map((t) => t.name)).toEqual(['ci']);
    await store.close();
    const db = openSqliteDatabase(dir);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
    expect(versions).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

/** An execution record with `input`, for the batch tests. */
const record = (id: string, input: unknown) => ({
  id,
  parent_id: null,
  seq: 0,
  kind: 'execution' as const,
  surface: 'mcp' as const,
  caller: 'admin',
  server: null,
  tool: null,
  script: null,
  language: null,
  code: '1',
  input,
  args: null,
  status: 'success' as const,
  error: null,
  started_at: new Date().toISOString(),
  duration_ms: 1,
  logs: [],
  response: null,
  instance_id: 'i',
});

describe('SQLite activity batches', () => {
  // [case, the batch's input value, whether the batch is written]
  const rows: Array<[string, unknown, boolean]> = [
    ['a batch that is written', { a: 1 }, true],
    ['a batch that fails (a BigInt is not JSON)', { a: 1n }, false],
  ];
  it.each(rows)('%s leaves the connection as durable as it was', async (_case, input, written) => {
    const dir = tempDir();
    const db = openSqliteDatabase(dir);
    const before = db.pragma('synchronous', { simple: true });
    const store = sqliteActivityStore(db);
    const insert = store.insert([record('a1', input)]);
    if (written) await insert;
    else await expect(insert).rejects.toThrow();
    expect(db.pragma('synchronous', { simple: true })).toBe(before);
    expect(Boolean(await store.get('a1'))).toBe(written);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('SQLite activity writer thread', () => {
  it('commits on its own connection, leaving the gateway connection as durable as it was', async () => {
    const dir = tempDir();
    const db = openSqliteDatabase(dir);
    const before = db.pragma('synchronous', { simple: true });
    const store = sqliteActivityStore(db, db.name);
    await store.insert([record('w1', { a: 1 })]);
    expect(db.pragma('synchronous', { simple: true })).toBe(before);
    expect((await store.get('w1'))?.input).toEqual({ a: 1 });
    await store.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("rejects a batch the thread cannot write with the database's reason", async () => {
    const dir = tempDir();
    const store = openStore(dir, { activityWriter: true });
    await expect(store.activity.insert([record('w2', { a: 1n })])).rejects.toThrow(/BigInt/);
    expect(await store.activity.get('w2')).toBeUndefined();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing handed over right before the store closes', async () => {
    const dir = tempDir();
    const store = openStore(dir, { activityWriter: true });
    const batches = Array.from({ length: 5 }, (_, b) =>
      Array.from({ length: 200 }, (_, i) => ({ ...record(`b${b}-${i}`, null), seq: i })),
    );
    const inserts = batches.map((batch) => store.activity.insert(batch));
    await store.close();
    await Promise.all(inserts);
    const again = openStore(dir);
    expect((await again.activity.list({ limit: 1, offset: 0 })).total).toBe(1000);
    await again.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
