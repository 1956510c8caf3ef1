/**
 * @module Agent tokens in PostgreSQL. `verify` answers from memory (it runs on every request):
 * the cache is reloaded whole on start, on every change notice from another instance and after
 * the LISTEN connection comes back; while it is down (notices could be missed) every token is
 * refused, so a revoked token never passes on a stale cache.
 */
import type { PgDatabase } from './pg-database.ts';
import { type TokenRow, tokenOf } from './token-rows.ts';
import {
  checkNewToken,
  hashToken,
  newTokenSecret,
  TOKEN_PREFIX,
  tokenExists,
} from './token-rules.ts';
import type { TokenRecord, TokenStore } from './token-store.ts';

/** `last_used_at` is written at most this often per token (it is informational). */
const TOUCH_INTERVAL_MS = 60_000;
const UNIQUE_VIOLATION = '23505';

type Row = TokenRow & { hash: string };

/** Opens the token store of an open PostgreSQL database, its cache loaded. */
export async function pgTokenStore(db: PgDatabase): Promise<TokenStore> {
  let byHash = new Map<string, TokenRecord>();
  const touched = new Map<string, number>();
  let generation = 0;
  const reload = async () => {
    const mine = ++generation;
    const { rows } = await db.query<Row>(
      'SELECT name, hash, servers, code_tools, created_at, last_used_at FROM agent_tokens',
    );
    // A newer reload started meanwhile: its answer is the fresher one.
    if (mine !== generation) return;
    byHash = new Map(rows.map((row) => [row.hash, tokenOf(row)]));
  };
  await reload();
  let fresh = db.listening();
  const reloadQuietly = () => void reload().catch(() => {});
  const stopChanges = db.onChange('tokens', reloadQuietly);
  const stopState = db.onListenState((up) => {
    if (!up) {
      fresh = false;
      return;
    }
    void reload().then(
      () => {
        fresh = db.listening();
      },
      () => {},
    );
  });

  return {
    async create(name, servers, codeTools = []) {
      checkNewToken(name, servers, codeTools);
      const token = newTokenSecret();
      const created = new Date().toISOString();
      const hash = hashToken(token);
      try {
        await db.query(
          'INSERT INTO agent_tokens (name, hash, servers, code_tools, created_at) VALUES ($1, $2, $3, $4, $5)',
          [name, hash, JSON.stringify(servers), JSON.stringify(codeTools), created],
        );
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw tokenExists(name);
        throw error;
      }
      const record = { name, servers, code_tools: codeTools, created_at: created };
      byHash.set(hash, record);
      await db.notify('tokens');
      return { token, record };
    },
    async list() {
      const { rows } = await db.query<Row>(
        'SELECT name, hash, servers, code_tools, created_at, last_used_at FROM agent_tokens ORDER BY name',
      );
      return rows.map(tokenOf);
    },
    async revoke(name) {
      const { rowCount } = await db.query('DELETE FROM agent_tokens WHERE name = $1', [name]);
      for (const [hash, record] of byHash) if (record.name === name) byHash.delete(hash);
      await db.notify('tokens');
      return (rowCount ?? 0) > 0;
    },
    verify(token) {
      if (!fresh || !token.startsWith(TOKEN_PREFIX)) return undefined;
      const record = byHash.get(hashToken(token));
      if (!record) return undefined;
      const now = Date.now();
      if (now - (touched.get(record.name) ?? 0) >= TOUCH_INTERVAL_MS) {
        touched.set(record.name, now);
        const at = new Date(now).toISOString();
        record.last_used_at = at;
        db.query('UPDATE agent_tokens SET last_used_at = $1 WHERE name = $2', [
          at,
          record.name,
        ]).catch(() => {});
      }
      return record;
    },
    async close() {
      stopChanges();
      stopState();
    },
  };
}
