/** @module The commands' one way to read the config: a bad config is a line on stderr and exit 2. */
import { configPath, loadConfig, type ResolvedConfig } from '../config/index.ts';
import { ConfigError } from '../errors/index.ts';
import { EXIT_USAGE } from './exit-codes.ts';

/** The config named by `--config` (else the default places); undefined after reporting a bad one. */
export function loadConfigOrExit(flags: {
  config?: string;
  listen?: string;
}): ResolvedConfig | undefined {
  try {
    return loadConfig(configPath(flags.config), {
      mustExist: flags.config !== undefined,
      listen: flags.listen,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`codemux: ${error.message}\n`);
    process.exitCode = EXIT_USAGE;
    return undefined;
  }
}
