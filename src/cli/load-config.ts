/** @module The commands' one way to read the config: warnings on stderr, a bad config is a line on stderr and exit 2. */
import type { ResolvedConfig } from '../config/index.ts';
// Not the config barrel: the config editor and watcher are not needed to read it.
import { loadConfigFrom } from '../config/load.ts';
import { ConfigError } from '../errors/index.ts';
import { EXIT_USAGE } from './exit-codes.ts';

/** Prints the warnings (unknown or ignored keys) of a config or of a ConfigError, one stderr line each. */
export function printConfigWarnings(config: { warnings: readonly string[] }): void {
  for (const line of config.warnings) process.stderr.write(`codemux: warning: ${line}\n`);
}

/** The config named by `--config` (else the default places); undefined after reporting a bad one. */
export function loadConfigOrExit(flags: {
  config?: string;
  listen?: string;
}): ResolvedConfig | undefined {
  try {
    const config = loadConfigFrom(flags.config, flags.listen);
    printConfigWarnings(config);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printConfigWarnings(error);
    process.stderr.write(`codemux: ${error.message}\n`);
    process.exitCode = EXIT_USAGE;
    return undefined;
  }
}
