/** @module Finds and reads the config file; the only place that reads process.env. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors/index.ts';
import { DATABASE_URL_PATTERN, DEFAULT_CONFIG_RELATIVE_PATH } from './defaults.ts';
import { resolveConfig } from './resolve.ts';
import type { ResolvedConfig } from './types.ts';

/** `--config`, else `$CODEMUX_CONFIG`, else `~/.codemux/mcp_config.json`. */
export function configPath(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return configLocation(flag, env).file;
}

/** The config file and what named it; only the default place may be missing. */
export function configLocation(
  flag?: string,
  env: NodeJS.ProcessEnv = process.env,
): { file: string; from: '--config' | 'CODEMUX_CONFIG' | 'default' } {
  if (flag !== undefined) return { file: path.resolve(flag), from: '--config' };
  if (env.CODEMUX_CONFIG) return { file: path.resolve(env.CODEMUX_CONFIG), from: 'CODEMUX_CONFIG' };
  return { file: path.join(os.homedir(), DEFAULT_CONFIG_RELATIVE_PATH), from: 'default' };
}

/** Loads the config `--config` / $CODEMUX_CONFIG / the default place names (see configLocation). */
export function loadConfigFrom(flag: string | undefined, listen?: string): ResolvedConfig {
  const { file, from } = configLocation(flag);
  return loadConfig(file, { mustExist: from !== 'default', listen, from });
}

/** Reads, parses and resolves the config file at `file`. A missing default file is an empty config. */
export function loadConfig(
  file: string,
  options: { mustExist: boolean; listen?: string; from?: string },
): ResolvedConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !options.mustExist) {
      const empty = options.listen ? { listen: options.listen } : {};
      return {
        ...withEnvironment(resolveConfig(empty, { path: file, baseDir: path.dirname(file) })),
        missing: true,
      };
    }
    const namedBy = options.from ? ` (named by ${options.from})` : '';
    throw new ConfigError(
      code === 'ENOENT'
        ? `config file not found: ${file}${namedBy}; create it, for example with: echo '{"mcpServers": {}}' > ${file} (docs/configuration.md lists every field)`
        : `cannot read config file ${file}: ${(error as Error).message}`,
    );
  }
  return parseConfig(text, file, options.listen);
}

/** Resolves `text` as the contents of the config file `file` (`listen`: --listen, which wins). */
export function parseConfig(text: string, file: string, listen?: string): ResolvedConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (listen && raw && typeof raw === 'object' && !Array.isArray(raw)) {
    raw = { ...(raw as object), listen };
  }
  return withEnvironment(resolveConfig(raw, { path: file, baseDir: path.dirname(file) }));
}

/** Settings the environment may supply when the file has none: $CODEMUX_API_KEY, $CODEMUX_DATABASE_URL. */
function withEnvironment(
  loaded: ResolvedConfig,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConfig {
  let config: ResolvedConfig;
  try {
    config = withDatabaseUrl(loaded, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.message, error.field, loaded.warnings);
  }
  if (config.apiKey)
    return { ...config, apiKeySource: `"api_key" in ${config.path ?? 'the config'}` };
  if (env.CODEMUX_API_KEY) {
    return { ...config, apiKey: env.CODEMUX_API_KEY, apiKeySource: 'CODEMUX_API_KEY' };
  }
  return config;
}

function withDatabaseUrl(config: ResolvedConfig, env: NodeJS.ProcessEnv): ResolvedConfig {
  const url = env.CODEMUX_DATABASE_URL;
  if (config.databaseUrl || !url) return config;
  if (!DATABASE_URL_PATTERN.test(url)) {
    throw new ConfigError(
      'CODEMUX_DATABASE_URL (the environment\'s database_url) must be a PostgreSQL URL like "postgres://user:password@host:5432/codemux"',
      'database_url',
    );
  }
  return { ...config, databaseUrl: url, databaseUrlSource: 'CODEMUX_DATABASE_URL' };
}

/** Log level from `--log-level`, else `$CODEMUX_LOG_LEVEL`, else the given default. */
export function logLevelFrom(flag: string | undefined, fallback: string): string {
  return flag ?? process.env.CODEMUX_LOG_LEVEL ?? fallback;
}

/** Log format from `--log-format`, else `$CODEMUX_LOG_FORMAT`, else text on a terminal and JSON otherwise. */
export function logFormatFrom(flag: string | undefined): 'json' | 'text' {
  const chosen = flag ?? process.env.CODEMUX_LOG_FORMAT;
  if (chosen === 'json' || chosen === 'text') return chosen;
  return process.stderr.isTTY ? 'text' : 'json';
}
