import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runJournalStoreContract } from './run-journal-store.contract.ts';
import { openSqliteDatabase, type SqliteDatabase } from './sqlite-database.ts';
import { sqliteRunJournalStore } from './sqlite-run-journal-store.ts';

runJournalStoreContract('SQLite', async (limits) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-journal-'));
  const databases: SqliteDatabase[] = [openSqliteDatabase(dir)];
  return {
    journals: sqliteRunJournalStore(databases[0]!, limits),
    async another() {
      const db = openSqliteDatabase(dir);
      databases.push(db);
      return sqliteRunJournalStore(db, limits);
    },
    async dispose() {
      for (const db of databases) db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
