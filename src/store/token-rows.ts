/** @module The agent_tokens table's rows (but the hash), shared by the SQLite and PostgreSQL token stores: lists as JSON text. */
import type { TokenRecord } from './token-store.ts';

export interface TokenRow {
  name: string;
  servers: string;
  code_tools: string;
  created_at: string;
  last_used_at: string | null;
}

export function tokenOf(row: TokenRow): TokenRecord {
  return {
    name: row.name,
    servers: JSON.parse(row.servers) as string[],
    code_tools: JSON.parse(row.code_tools) as string[],
    created_at: row.created_at,
    ...(row.last_used_at ? { last_used_at: row.last_used_at } : {}),
  };
}
