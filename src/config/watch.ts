/**
 * @module Watches the config file: a valid edit is handed on, an invalid one is logged and
 * ignored (the last good config stays). The directory is watched, so editors that save by
 * rename are seen too.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../util/logger.ts';
import { loadConfig } from './load.ts';
import type { ResolvedConfig } from './types.ts';

const DEBOUNCE_MS = 100;

/** Starts watching `file`; returns a function that stops. */
export function watchConfig(
  file: string,
  onChange: (config: ResolvedConfig) => Promise<void> | void,
  logger: Logger,
): () => void {
  let lastText = readText(file);
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = undefined;
    const text = readText(file);
    if (text === undefined || text === lastText) return;
    lastText = text;
    let config: ResolvedConfig;
    try {
      config = loadConfig(file, { mustExist: true });
    } catch (error) {
      logger.error(
        { config: file },
        `config edit ignored, keeping the last good config: ${(error as Error).message}`,
      );
      return;
    }
    logger.info({ config: file }, 'config reloaded');
    Promise.resolve(onChange(config)).catch((error: unknown) =>
      logger.error({ err: (error as Error).message }, 'applying the reloaded config failed'),
    );
  };
  const watcher = fs.watch(path.dirname(file), (_event, name) => {
    if (name && name !== path.basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(check, DEBOUNCE_MS);
  });
  watcher.on('error', (error) => logger.warn({ err: error.message }, 'config watcher failed'));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
