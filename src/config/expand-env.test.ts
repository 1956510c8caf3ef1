// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.ts';
import { resolveConfig } from './resolve.ts';

const env = {
  KEY: 'k3y-from-env',
  PW: 's3cret',
  DB_URL: 'postgres://codemux:pw@db.internal:5432/codemux',
  INSTANCE: 'alpha',
  BRACED: 'a${b}c',
  EMPTY: '',
  CODEMUX_CONFIG_DIR: '/not/the/config/dir',
};
const resolve = (raw: unknown) =>
  resolveConfig(raw, { baseDir: '/etc/codemux', source: 'cfg.json', env });
type Config = ReturnType<typeof resolve>;

const server = (extra: Record<string, unknown>) => ({
  mcpServers: { gh: { command: 'gh-mcp', ...extra } },
});

function thrown(raw: unknown): ConfigError {
  try {
    resolve(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`resolved without an error: ${JSON.stringify(raw)}`);
}

describe('${VAR} in top-level fields', () => {
  // One row each: the config, what to read from the resolved config, its value.
  it.each([
    [{ api_key: '${KEY}' }, (c: Config) => c.apiKey, 'k3y-from-env'],
    [{ api_key: 'pre-${KEY}' }, (c: Config) => c.apiKey, 'pre-k3y-from-env'],
    [{ database_url: '${DB_URL}' }, (c: Config) => c.databaseUrl, env.DB_URL],
    [
      { database_url: 'postgres://codemux:${PW}@db:5432/x' },
      (c: Config) => c.databaseUrl,
      'postgres://codemux:s3cret@db:5432/x',
    ],
    [{ listen: '127.0.0.1:${PORT:-8081}' }, (c: Config) => c.listenPort, 8081],
    [{ data_dir: '${DATA:-/var/lib/codemux}' }, (c: Config) => c.dataDir, '/var/lib/codemux'],
    [{ instance_id: '${INSTANCE}' }, (c: Config) => c.instanceId, 'alpha'],
    // A value is not expanded again: a secret holding `${` comes whole from a variable.
    [{ api_key: '${BRACED}' }, (c: Config) => c.apiKey, 'a${b}c'],
    // Free text for the model is not a place for variables.
    [
      { toolkits: [{ name: 't', instructions: 'use ${KEY}', tools: ['a.b'] }] },
      (c: Config) => c.toolkits[0]!.instructions,
      'use ${KEY}',
    ],
    // The config's directory, whatever the environment says.
    [
      server({ env: { MEMORY_FILE_PATH: '${CODEMUX_CONFIG_DIR}/data/memory.jsonl' } }),
      (c: Config) => c.servers[0]!.env.MEMORY_FILE_PATH,
      '/etc/codemux/data/memory.jsonl',
    ],
    [
      server({ args: ['${CODEMUX_CONFIG_DIR}/files'] }),
      (c: Config) => c.servers[0]!.args[0],
      '/etc/codemux/files',
    ],
  ])('%j expands', (raw, read, expected) => {
    expect(read(resolve(raw))).toBe(expected);
  });

  // One row each: the config, the field named, the variable named.
  it.each([
    [{ api_key: '${CODEMUX_API_KEY}' }, 'api_key', 'CODEMUX_API_KEY'],
    [{ database_url: 'postgres://u:${DB_PASSWORD}@db/x' }, 'database_url', 'DB_PASSWORD'],
    [{ listen: '0.0.0.0:${PORT}' }, 'listen', 'PORT'],
    [{ data_dir: '${STATE_DIRECTORY}' }, 'data_dir', 'STATE_DIRECTORY'],
    [{ instance_id: '${HOSTNAME_UNSET}' }, 'instance_id', 'HOSTNAME_UNSET'],
  ])('%j without the variable names the field %s and the variable %s', (raw, field, name) => {
    const error = thrown(raw);
    expect(error.field).toBe(field);
    expect(error.message).toBe(
      `cfg.json: field "${field}" uses \${${name}}, which is not set in the environment; set ${name} or write \${${name}:-default}`,
    );
  });

  it('refuses an api_key that a set but empty variable leaves empty', () => {
    expect(thrown({ api_key: '${EMPTY}' }).message).toBe(
      'cfg.json: field "api_key" must not be empty',
    );
  });
});

describe('a secret with "${" left unexpanded', () => {
  // One row each: the config, the field named.
  it.each([
    [{ api_key: '${codemux-key}' }, 'api_key'],
    [{ api_key: '${KEY' }, 'api_key'],
    [{ api_key: '${KEY}${' }, 'api_key'],
    [{ database_url: 'postgres://u:${1PW}@db/x' }, 'database_url'],
    [server({ env: { T: '${KEY:=x}' } }), 'mcpServers.gh.env.T'],
    [server({ headers: { Authorization: 'Bearer ${KEY' } }), 'mcpServers.gh.headers.Authorization'],
  ])('%j is refused, naming %s', (raw, field) => {
    const error = thrown(raw);
    expect(error.field).toBe(field);
    expect(error.message).toBe(
      `cfg.json: field "${field}" has a "\${" that is not a variable reference; write \${NAME} or \${NAME:-default} (NAME: letters, digits and _, not starting with a digit), or put the whole value in a variable`,
    );
  });

  // Elsewhere text that is not a reference is kept as written.
  it.each([
    [server({ args: ['${not-a-var}'] }), (c: Config) => c.servers[0]!.args[0], '${not-a-var}'],
    [{ data_dir: '/srv/${x-y}' }, (c: Config) => c.dataDir, '/srv/${x-y}'],
  ])('%j is kept outside secrets', (raw, read, expected) => {
    expect(read(resolve(raw))).toBe(expected);
  });
});
