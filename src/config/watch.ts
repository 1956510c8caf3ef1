/**
 * @module Watches the config file: a valid edit is handed on, an invalid one is logged and
 * ignored (the last good config stays). The directory is watched, so editors that save by
 * rename are seen too, and a file created later at the default place is picked up.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError } from '../errors/index.ts';
import type { Logger } from '../util/logger.ts';
import { loadConfig } from './load.ts';
import type { ResolvedConfig } from './types.ts';

const DEBOUNCE_MS = 100;

/** A running watch: `reload` reads the file now (after codemux itself wrote it), `stop` ends it. */
export interface ConfigWatch {
  reload(): void;
  stop(): void;
}

/**
 * Starts watching `file`, whose contents were loaded as `loaded`. An edit made between that
 * load and this call is applied at once.
 */
export function watchConfig(
  file: string,
  loaded: ResolvedConfig,
  onChange: (config: ResolvedConfig, text: string) => Promise<void> | void,
  logger: Logger,
  options: { listen?: string } = {},
): ConfigWatch {
  let current = loaded;
  let lastText: string | undefined;
  let reported = new Set(loaded.warnings);
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = undefined;
    const text = readText(file);
    if (text === undefined || text === lastText) return;
    lastText = text;
    let config: ResolvedConfig;
    try {
      config = loadConfig(file, { mustExist: true, listen: options.listen });
    } catch (error) {
      // The edit's unknown keys too: a misspelt key is often why the edit is invalid.
      const warnings = error instanceof ConfigError ? error.warnings : [];
      for (const line of warnings) if (!reported.has(line)) logger.warn(line);
      reported = new Set([...reported, ...warnings]);
      logger.error(
        { config: file },
        `config edit ignored, keeping the last good config: ${(error as Error).message}`,
      );
      return;
    }
    // Each unknown or ignored key is named once, not on every reload.
    for (const line of config.warnings) if (!reported.has(line)) logger.warn(line);
    reported = new Set(config.warnings);
    if (isDeepStrictEqual({ ...config, warnings: [] }, { ...current, warnings: [] })) return;
    current = config;
    logger.info({ config: file }, 'config reloaded');
    Promise.resolve(onChange(config, text)).catch((error: unknown) =>
      logger.error({ err: (error as Error).message }, 'applying the reloaded config failed'),
    );
  };
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(path.dirname(file), (_event, name) => {
      if (name && name !== path.basename(file)) return;
      clearTimeout(timer);
      timer = setTimeout(check, DEBOUNCE_MS);
    });
    watcher.on('error', (error) => logger.warn({ err: error.message }, 'config watcher failed'));
  } catch (error) {
    logger.warn(
      { config: file, err: (error as Error).message },
      'cannot watch the config directory; edits apply after a restart',
    );
  }
  check();
  return {
    reload: () => {
      clearTimeout(timer);
      check();
    },
    stop: () => {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
