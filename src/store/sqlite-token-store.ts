/** @module Agent tokens in SQLite (better-sqlite3), in `data_dir/codemux.db`; only SHA-256 hashes are stored. */
import type { SqliteDatabase } from './sqlite-database.ts';
import { type TokenRow, tokenOf } from './token-rows.ts';
import {
  checkNewToken,
  hashToken as hash,
  newTokenSecret,
  TOKEN_PREFIX,
  tokenExists,
} from './token-rules.ts';
import type { TokenStore } from './token-store.ts';

/** Agent tokens in an open database; closing the database is its owner's job. */
export function sqliteTokenStore(db: SqliteDatabase): TokenStore {
  const insert = db.prepare(
    'INSERT INTO agent_tokens (name, hash, servers, code_tools, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const all = db.prepare(
    'SELECT name, servers, code_tools, created_at, last_used_at FROM agent_tokens ORDER BY name',
  );
  const remove = db.prepare('DELETE FROM agent_tokens WHERE name = ?');
  const byHash = db.prepare(
    'SELECT name, servers, code_tools, created_at, last_used_at FROM agent_tokens WHERE hash = ?',
  );
  const touch = db.prepare('UPDATE agent_tokens SET last_used_at = ? WHERE name = ?');

  return {
    async create(name, servers, codeTools = []) {
      checkNewToken(name, servers, codeTools);
      const token = newTokenSecret();
      const created = new Date().toISOString();
      try {
        insert.run(name, hash(token), JSON.stringify(servers), JSON.stringify(codeTools), created);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw tokenExists(name);
        }
        throw error;
      }
      return { token, record: { name, servers, code_tools: codeTools, created_at: created } };
    },
    list: async () => (all.all() as TokenRow[]).map(tokenOf),
    revoke: async (name) => remove.run(name).changes > 0,
    verify(token) {
      if (!token.startsWith(TOKEN_PREFIX)) return undefined;
      const row = byHash.get(hash(token)) as TokenRow | undefined;
      if (!row) return undefined;
      touch.run(new Date().toISOString(), row.name);
      return tokenOf(row);
    },
    close: async () => {},
  };
}
