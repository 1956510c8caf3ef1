/** @module Opens the store a gateway uses: tokens and activity in one database. */
import { sqliteActivityStore } from './sqlite-activity-store.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { sqliteTokenStore } from './sqlite-token-store.ts';
import type { ActivityStore, TokenStore } from './types.ts';

export interface Store {
  tokens: TokenStore;
  activity: ActivityStore;
  close(): Promise<void>;
}

/** The SQLite store in `dataDir` (created and migrated when needed). */
export function openStore(dataDir: string): Store {
  const db = openSqliteDatabase(dataDir);
  let closed = false;
  return {
    tokens: sqliteTokenStore(db),
    activity: sqliteActivityStore(db),
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
