/**
 * @module The commands' one way to open the store: SQLite in data_dir, or PostgreSQL
 * (database_url); a database that cannot be used is a CliError (one stderr line, exit 2).
 */
import type { ResolvedConfig } from '../config/index.ts';
import { CodemuxError } from '../errors/index.ts';
import { openConfiguredStore } from '../store/index.ts';
import { CliError } from './cli-error.ts';
import { EXIT_USAGE } from './exit-codes.ts';

export type OpenedStore = Awaited<ReturnType<typeof openConfiguredStore>>;

/** The config's store, connected and migrated. */
export async function openStoreOrExit(config: ResolvedConfig): Promise<OpenedStore> {
  try {
    return await openConfiguredStore(config);
  } catch (error) {
    if (!(error instanceof CodemuxError) || error.code !== 'DATABASE_UNAVAILABLE') throw error;
    throw new CliError(error.message, EXIT_USAGE);
  }
}
