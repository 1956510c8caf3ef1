import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { activityStoreContract } from './activity-store.contract.ts';
import { MIGRATIONS } from './migrations.ts';
import { openStore } from './open-store.ts';
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
