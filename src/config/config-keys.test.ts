// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are config text with ${VAR} references
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.ts';
import { resolveConfig } from './resolve.ts';

const resolve = (raw: unknown, env: NodeJS.ProcessEnv = {}) =>
  resolveConfig(raw, { baseDir: '/etc/codemux', source: 'cfg.json', env });

const server = (extra: Record<string, unknown>) => ({
  mcpServers: { gh: { command: 'gh-mcp', ...extra } },
});

describe('unknown config keys', () => {
  // One row each: the config, the key, where it is, the suggestion ('' = none).
  it.each([
    [
      { code_execution_timout_ms: 5 },
      'code_execution_timout_ms',
      'at the top level',
      'code_execution_timeout_ms',
    ],
    [{ listne: '127.0.0.1:1' }, 'listne', 'at the top level', 'listen'],
    [{ mcpservers: {} }, 'mcpservers', 'at the top level', 'mcpServers'],
    [{ connect_timout_ms: 5 }, 'connect_timout_ms', 'at the top level', 'connect_timeout_ms'],
    [server({ arg: ['x'] }), 'arg', 'in mcpServers.gh', 'args'],
    [server({ enabeld: true }), 'enabeld', 'in mcpServers.gh', 'enabled'],
    [server({ 'call-timeout-ms': 5 }), 'call-timeout-ms', 'in mcpServers.gh', 'call_timeout_ms'],
    [server({ enviroment: {} }), 'enviroment', 'in mcpServers.gh', ''],
    [{ code_mode: { max_host_call: 5 } }, 'max_host_call', 'in code_mode', 'max_host_calls'],
    [{ search: { max_result: 5 } }, 'max_result', 'in search', 'max_results'],
    [
      { mcpServers: [{ name: 'a', command: 'x', headrs: {} }] },
      'headrs',
      'in mcpServers[0]',
      'headers',
    ],
  ])('%j names %s %s, suggesting "%s"', (raw, key, where, suggestion) => {
    const config = resolve(raw);
    const hint = suggestion ? `; did you mean \`${suggestion}\`?` : '';
    expect(config.warnings).toEqual([`cfg.json: unknown key "${key}" ${where}${hint}`]);
  });

  it.each([
    [{ globalShortcut: 'Ctrl+Space' }, 'globalShortcut', 'at the top level', 'Claude Desktop'],
    [{ top_k: 5 }, 'top_k', 'at the top level', 'MCPProxy'],
    [server({ autoApprove: [] }), 'autoApprove', 'in mcpServers.gh', 'Claude Desktop/Cline'],
  ])('%j names %s as ignored', (raw, key, where, system) => {
    expect(resolve(raw).warnings).toEqual([
      `cfg.json: key "${key}" ${where} is a ${system} setting codemux does not use; ignored`,
    ]);
  });

  it('knows every field of the schema, nested ones included', () => {
    const config = resolve({
      listen: '127.0.0.1:9',
      connect_timeout_ms: 1000,
      code_mode: { max_host_calls: 3 },
      toolkits: [{ name: 't', description: '', instructions: '', tools: ['a.b'] }],
      mcpServers: { gh: { command: 'x', args: [], env: {}, connect_timeout_ms: 500 } },
    });
    expect(config.warnings).toEqual([]);
  });

  it('refuses a server with both command and url, naming it', () => {
    expect(() => resolve(server({ url: 'http://127.0.0.1:1/mcp' }))).toThrow(
      /server "gh" \(mcpServers.gh\) has both "command" and "url"/,
    );
  });
});

describe('${VAR} in server fields', () => {
  const env = { TOKEN: 'secret', HOST: '127.0.0.1', EMPTY: '' };
  // One row each: the server fields, the environment-expanded field to read, its value.
  it.each([
    [{ env: { T: '${TOKEN}' } }, (s: Srv) => s.env.T, 'secret'],
    [{ env: { T: 'Bearer ${TOKEN}!' } }, (s: Srv) => s.env.T, 'Bearer secret!'],
    [{ args: ['--token=${TOKEN}', 'plain'] }, (s: Srv) => s.args.join(' '), '--token=secret plain'],
    [{ command: '${NODE_BIN:-node}' }, (s: Srv) => s.command, 'node'],
    [{ cwd: '/srv/${MISSING:-app}' }, (s: Srv) => s.cwd, '/srv/app'],
    [{ env: { T: '${EMPTY:-fallback}' } }, (s: Srv) => s.env.T, 'fallback'],
    [{ env: { T: '${EMPTY}' } }, (s: Srv) => s.env.T, ''],
    [{ args: ['$TOKEN and $${TOKEN'] }, (s: Srv) => s.args[0], '$TOKEN and $${TOKEN'],
  ])('%j expands', (fields, read, expected) => {
    const config = resolve(server(fields), env);
    expect(read(config.servers[0]!)).toBe(expected);
  });

  it('expands url, defaults included', () => {
    const config = resolve(
      { mcpServers: { gh: { url: 'http://${HOST}:${PORT:-8081}/mcp' } } },
      env,
    );
    expect(config.servers[0]!.url).toBe('http://127.0.0.1:8081/mcp');
  });

  it.each([
    [{ env: { T: '${GITHUB_TOKEN}' } }, 'mcpServers.gh.env.T', 'GITHUB_TOKEN'],
    [{ args: ['a', '${NOPE}'] }, 'mcpServers.gh.args[1]', 'NOPE'],
    [{ command: '${BIN}' }, 'mcpServers.gh.command', 'BIN'],
    [{ headers: { Authorization: 'Bearer ${API}' } }, 'mcpServers.gh.headers.Authorization', 'API'],
  ])('%j without the variable names the field %s and the variable %s', (fields, field, name) => {
    let error: unknown;
    try {
      resolve(server(fields), env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `cfg.json: field "${field}" uses \${${name}}, which is not set in the environment; set ${name} or write \${${name}:-default}`,
    );
  });
});

type Srv = ReturnType<typeof resolve>['servers'][number];
