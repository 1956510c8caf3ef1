/** @module The SQLite database file (`data_dir/codemux.db`): opened once, WAL, migrated forward. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.ts';

export const DATABASE_FILE = 'codemux.db';

export type SqliteDatabase = Database.Database;

/** Applies every migration newer than the database's version, each in its own transaction. */
function migrate(db: SqliteDatabase): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
  );
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as {
    v: number | null;
  };
  const current = row.v ?? 0;
  const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      for (const sql of migration.statements) db.exec(sql);
      record.run(migration.version, new Date().toISOString());
    })();
  }
}

/** Opens (creating when needed) the database in `dataDir`, migrated to the latest schema. */
export function openSqliteDatabase(dataDir: string): SqliteDatabase {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 2000');
  migrate(db);
  return db;
}
