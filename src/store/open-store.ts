/** @module Opens the store a gateway uses: tokens, activity and code tools in one database. */
import { sqliteActivityStore } from './sqlite-activity-store.ts';
import { sqliteCodeToolStore } from './sqlite-code-tool-store.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { sqliteTokenStore } from './sqlite-token-store.ts';
import type { ActivityStore, CodeToolStore, TokenStore } from './types.ts';

export interface Store {
  tokens: TokenStore;
  activity: ActivityStore;
  codeTools: CodeToolStore;
  close(): Promise<void>;
}

/** The SQLite store in `dataDir` (created and migrated when needed). */
export function openStore(dataDir: string): Store {
  const db = openSqliteDatabase(dataDir);
  let closed = false;
  const codeTools = sqliteCodeToolStore(db);
  return {
    tokens: sqliteTokenStore(db),
    activity: sqliteActivityStore(db),
    codeTools,
    async close() {
      if (closed) return;
      closed = true;
      await codeTools.close();
      db.close();
    },
  };
}
