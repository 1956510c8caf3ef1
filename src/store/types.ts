/** @module The store contract: agent tokens, kept hashed. */

export interface TokenRecord {
  name: string;
  servers: string[];
  created_at: string;
  last_used_at?: string;
}

export interface TokenStore {
  /** Creates a token; the secret is returned once and only its hash is kept. */
  create(name: string, servers: string[]): { token: string; record: TokenRecord };
  list(): TokenRecord[];
  /** True when a token of that name existed. */
  revoke(name: string): boolean;
  /** The record of a valid token, or undefined. */
  verify(token: string): TokenRecord | undefined;
  close(): void;
}
