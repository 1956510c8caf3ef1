/**
 * @module The admin API key: from the config (`api_key` or $CODEMUX_API_KEY), else a key
 * generated at first start and kept in `data_dir/api_key` with owner-only permissions.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.ts';

export const API_KEY_FILE = 'api_key';

export interface AdminKey {
  key: string;
  source: 'config' | 'file';
  /** The key file, when the key lives in one. */
  file?: string;
}

const keyFile = (config: ResolvedConfig) => path.join(config.dataDir, API_KEY_FILE);

/** The admin key, generating and storing one when there is none yet. */
export function ensureAdminKey(config: ResolvedConfig): AdminKey {
  if (config.apiKey) return { key: config.apiKey, source: 'config' };
  const file = keyFile(config);
  const existing = readAdminKey(config);
  if (existing) return existing;
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(24).toString('base64url');
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readAdminKey(config)!;
    throw error;
  }
  return { key, source: 'file', file };
}

/** The admin key if one exists (config or key file); never creates one. */
export function readAdminKey(config: ResolvedConfig): AdminKey | undefined {
  if (config.apiKey) return { key: config.apiKey, source: 'config' };
  const file = keyFile(config);
  try {
    const key = fs.readFileSync(file, 'utf8').trim();
    return key ? { key, source: 'file', file } : undefined;
  } catch {
    return undefined;
  }
}
