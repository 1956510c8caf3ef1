/** @module The token store contract: agent tokens, kept hashed; writes asynchronous, `verify` synchronous. */

export interface TokenRecord {
  name: string;
  servers: string[];
  /** Code tools the token may see and call (by name). */
  code_tools: string[];
  created_at: string;
  last_used_at?: string;
}

/**
 * Writes and listings are asynchronous (PostgreSQL fits behind it); `verify` stays synchronous
 * because it runs on every request: a PostgreSQL store answers it from memory, kept current by
 * change notices, and refuses every token while it cannot hear them.
 */
export interface TokenStore {
  /** Creates a token; the secret is returned once and only its hash is kept. */
  create(
    name: string,
    servers: string[],
    codeTools?: string[],
  ): Promise<{ token: string; record: TokenRecord }>;
  list(): Promise<TokenRecord[]>;
  /** True when a token of that name existed; this store refuses it from now on. */
  revoke(name: string): Promise<boolean>;
  /** The record of a valid token, or undefined. */
  verify(token: string): TokenRecord | undefined;
  close(): Promise<void>;
}
