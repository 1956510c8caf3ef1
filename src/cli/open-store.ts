/** @module The commands' one way to open the store: SQLite in data_dir, or PostgreSQL (database_url); an unreachable database is a line on stderr and exit 2. */
import type { ResolvedConfig } from '../config/index.ts';
import { CodemuxError } from '../errors/index.ts';
import { openConfiguredStore } from '../store/index.ts';
import { EXIT_USAGE } from './exit-codes.ts';

export type OpenedStore = Awaited<ReturnType<typeof openConfiguredStore>>;

/** The config's store; undefined after reporting a database that cannot be used. */
export async function openStoreOrExit(config: ResolvedConfig): Promise<OpenedStore | undefined> {
  try {
    return await openConfiguredStore(config);
  } catch (error) {
    if (!(error instanceof CodemuxError) || error.code !== 'DATABASE_UNAVAILABLE') throw error;
    process.stderr.write(`codemux: ${error.message}\n`);
    process.exitCode = EXIT_USAGE;
    return undefined;
  }
}
