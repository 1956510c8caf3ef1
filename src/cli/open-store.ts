/**
 * @module The commands' one way to open the store: SQLite in data_dir, or PostgreSQL
 * (database_url); a database that cannot be used is a CliError (one stderr line, exit 2).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.ts';
import { CodemuxError } from '../errors/index.ts';
import {
  DATABASE_FILE,
  loadSecretKey,
  type OpenOptions,
  openConfiguredStore,
} from '../store/index.ts';
import { SecretBox } from '../util/secret-box.ts';
import { CliError } from './cli-error.ts';
import { EXIT_USAGE } from './exit-codes.ts';

export type OpenedStore = Awaited<ReturnType<typeof openConfiguredStore>>;

/** The config's store, connected and migrated. */
export async function openStoreOrExit(
  config: ResolvedConfig,
  options: OpenOptions = {},
): Promise<OpenedStore> {
  try {
    return await openConfiguredStore(config, options);
  } catch (error) {
    if (!(error instanceof CodemuxError) || error.code !== 'DATABASE_UNAVAILABLE') throw error;
    throw new CliError(error.message, EXIT_USAGE);
  }
}

/**
 * The config's store when it has one already; undefined for a SQLite data_dir without its
 * database file, which a read-only command must not create (nor the data_dir).
 */
export async function openExistingStoreOrExit(
  config: ResolvedConfig,
): Promise<OpenedStore | undefined> {
  if (config.databaseUrl === undefined && !fs.existsSync(path.join(config.dataDir, DATABASE_FILE)))
    return undefined;
  return openStoreOrExit(config);
}

/**
 * The store's upstream OAuth side for a runtime. The secret key (`CODEMUX_SECRET_KEY`, else
 * `data_dir/secret_key`, made once) is read when a token is first sealed or opened.
 */
export function oauthOf(
  store: OpenedStore,
  config: ResolvedConfig,
): { store: OpenedStore['oauth']; secretBox: () => SecretBox } {
  let box: SecretBox | undefined;
  return {
    store: store.oauth,
    secretBox: () => {
      box ??= new SecretBox(loadSecretKey(config.dataDir).key);
      return box;
    },
  };
}
