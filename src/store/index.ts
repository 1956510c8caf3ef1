/** @module Persistence: agent tokens (SQLite) and the admin key file. */
export { type AdminKey, API_KEY_FILE, ensureAdminKey, readAdminKey } from './admin-key.ts';
export { DATABASE_FILE, openTokenStore } from './sqlite-token-store.ts';
export type { TokenRecord, TokenStore } from './types.ts';
