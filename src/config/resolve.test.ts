import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.ts';
import { resolveConfig } from './resolve.ts';

const resolve = (raw: unknown) =>
  resolveConfig(raw, { baseDir: '/etc/codemux', source: 'cfg.json' });

describe('resolveConfig', () => {
  it('applies every default', () => {
    const config = resolve({});
    expect(config.listen).toBe('127.0.0.1:8080');
    expect(config.dataDir).toBe('/etc/codemux/data');
    expect(config.codeExecution).toEqual({
      enabled: true,
      timeoutMs: 120000,
      maxToolCalls: 0,
      poolSize: 10,
      maxParallel: 8,
      memoryLimitMb: 128,
      maxOutputBytes: 1048576,
      maxResultBytes: 16777216,
      maxHostCalls: 10000,
      typecheck: 'warn',
      typecheckWaitMs: 5000,
      yieldMs: 30000,
      resultTtlMs: 3600000,
      maxRunning: 100,
      durable: true,
    });
    expect(config.shutdownGraceMs).toBe(5000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.instanceId).toMatch(/^i[0-9a-f]{8}$/);
  });

  it('keeps one generated instance_id per process and takes a configured one', () => {
    expect(resolve({}).instanceId).toBe(resolve({}).instanceId);
    expect(resolve({ instance_id: 'gw-1' }).instanceId).toBe('gw-1');
    const pg = resolve({ database_url: 'postgres://u:p@127.0.0.1:5432/codemux' });
    expect(pg.databaseUrl).toBe('postgres://u:p@127.0.0.1:5432/codemux');
    expect(pg.databaseUrlSource).toBe('"database_url" in cfg.json');
  });

  it('accepts both mcpServers shapes and infers the protocol', () => {
    const list = resolve({
      mcpServers: [{ name: 'gh', protocol: 'stdio', command: 'gh-mcp', args: ['x'] }],
    });
    const map = resolve({
      mcpServers: {
        gh: { command: 'gh-mcp', args: ['x'] },
        web: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
    expect(list.servers[0]).toMatchObject({
      name: 'gh',
      protocol: 'stdio',
      command: 'gh-mcp',
      cwd: '/etc/codemux',
    });
    expect(map.servers.map((s) => [s.name, s.protocol])).toEqual([
      ['gh', 'stdio'],
      ['web', 'http'],
    ]);
    expect(map.servers[0]).toMatchObject({
      enabled: true,
      quarantined: false,
      queueSize: 0,
      maxConcurrentRequests: undefined,
    });
  });

  it.each([
    [{ code_execution_timeout_ms: 0 }, 'code_execution_timeout_ms', 'from 1 to 600000'],
    [{ code_execution_timeout_ms: 600001 }, 'code_execution_timeout_ms', 'from 1 to 600000'],
    [{ code_execution_pool_size: 101 }, 'code_execution_pool_size', 'from 1 to 100'],
    [{ code_execution_max_parallel: 33 }, 'code_execution_max_parallel', 'from 1 to 32'],
    [{ code_execution_memory_limit_mb: 4096 }, 'code_execution_memory_limit_mb', 'from 1 to 2048'],
    [{ code_execution_max_tool_calls: -1 }, 'code_execution_max_tool_calls', 'integer'],
    [{ code_execution_max_output_bytes: 10 }, 'code_execution_max_output_bytes', 'from 1024'],
    [
      { code_execution_max_result_bytes: 1023 },
      'code_execution_max_result_bytes',
      'from 1024 to 67108864',
    ],
    [
      { code_execution_max_result_bytes: 67_108_865 },
      'code_execution_max_result_bytes',
      'from 1024 to 67108864',
    ],
    [
      { code_execution_max_result_bytes: 2048.5 },
      'code_execution_max_result_bytes',
      'from 1024 to 67108864',
    ],
    [{ code_execution_max_result_bytes: '16MB' }, 'code_execution_max_result_bytes', 'integer'],
    [{ code_execution_max_host_calls: 0 }, 'code_execution_max_host_calls', 'from 1 to 1000000'],
    [
      { code_execution_max_host_calls: 1_000_001 },
      'code_execution_max_host_calls',
      'from 1 to 1000000',
    ],
    [{ code_execution_max_host_calls: 2.5 }, 'code_execution_max_host_calls', 'from 1 to 1000000'],
    [{ enable_code_execution: 'yes' }, 'enable_code_execution', 'true or false'],
    [{ max_request_bytes: 100 }, 'max_request_bytes', 'from 1024 to 1073741824'],
    [{ max_request_bytes: 1.5 }, 'max_request_bytes', 'integer'],
    [{ max_mcp_sessions: 0 }, 'max_mcp_sessions', 'from 1 to 100000'],
    [{ max_mcp_sessions: 100_001 }, 'max_mcp_sessions', 'from 1 to 100000'],
    [{ shutdown_grace_ms: -1 }, 'shutdown_grace_ms', 'from 0 to 600000'],
    [{ shutdown_grace_ms: 600001 }, 'shutdown_grace_ms', 'from 0 to 600000'],
    [{ shutdown_grace_ms: 1.5 }, 'shutdown_grace_ms', 'integer'],
    [{ mcpServers: 5 }, 'mcpServers', 'array of servers'],
    [{ mcpServers: [{ command: 'x' }] }, 'mcpServers[0].name', 'required'],
    [{ mcpServers: [{ name: 'a b', command: 'x' }] }, 'mcpServers[0].name', '1-64 characters'],
    [{ mcpServers: [{ name: 'a' }] }, 'mcpServers[0]', 'needs "command"'],
    [{ mcpServers: [{ name: 'a', protocol: 'http' }] }, 'mcpServers[0].url', 'required'],
    [
      { mcpServers: [{ name: 'a', url: 'javascript:alert(1)' }] },
      'mcpServers[0].url',
      'http(s) URL',
    ],
    [
      { mcpServers: [{ name: 'a', url: 'file:///etc/passwd' }] },
      'mcpServers[0].url',
      'http(s) URL',
    ],
    [
      { mcpServers: [{ name: 'a', protocol: 'grpc', command: 'x' }] },
      'mcpServers[0].protocol',
      '"stdio"',
    ],
    [
      { mcpServers: { a: { command: 'x', max_concurrent_requests: 0 } } },
      'mcpServers.a.max_concurrent_requests',
      'from 1',
    ],
    [{ mcpServers: { a: { command: 'x', queue_size: -1 } } }, 'mcpServers.a.queue_size', 'from 0'],
    [
      { mcpServers: { a: { command: 'x', cluster_max_concurrent_requests: 0 } } },
      'mcpServers.a.cluster_max_concurrent_requests',
      'from 1 to 1000',
    ],
    [{ database_url: 'mysql://db/x' }, 'database_url', 'postgres://'],
    [{ database_url: 5 }, 'database_url', 'string'],
    [{ instance_id: 'a.b' }, 'instance_id', '1-32 characters'],
    [{ activity_redact_keys: 'token' }, 'activity_redact_keys', 'array of key names'],
    [{ activity_redact_keys: ['token', 5] }, 'activity_redact_keys[1]', 'a key name (a string)'],
    [{ activity_redact_keys: ['--'] }, 'activity_redact_keys[0]', 'a letter or a digit'],
    [{ activity_redact_keys: ['x'.repeat(129)] }, 'activity_redact_keys[0]', 'at most 128'],
    [{ instance_id: '' }, 'instance_id', '1-32 characters'],
    [{ mcpServers: { a: { command: 'x', args: 'y' } } }, 'mcpServers.a.args', 'array of strings'],
    [
      {
        mcpServers: [
          { name: 'a', command: 'x' },
          { name: 'a', command: 'y' },
        ],
      },
      'mcpServers[1].name',
      'used twice',
    ],
  ])('refuses %j naming %s', (raw, field, hint) => {
    let thrown: unknown;
    try {
      resolve(raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).field).toBe(field);
    expect((thrown as ConfigError).message).toContain(`"${field}"`);
    expect((thrown as ConfigError).message).toContain(hint);
  });
});

describe('listen on a name that merely starts with 127.', () => {
  it.each([
    ['127.0.0.1:8080', false],
    ['localhost:8080', false],
    ['127.0.0.1.nip.io:8080', true],
    ['0.0.0.0:8080', true],
  ])('%s requires MCP auth: %s', (listen, required) => {
    expect(resolveConfig({ listen }, { baseDir: '/tmp' }).requireMcpAuth).toBe(required);
  });

  it('redacts the default secret-looking keys unless activity_redact_keys replaces the list', () => {
    expect(resolveConfig({}, { baseDir: '/tmp' }).activity.redactKeys).toEqual([
      'password',
      'token',
      'secret',
      'api_key',
      'authorization',
    ]);
    const own = resolveConfig({ activity_redact_keys: ['cookie'] }, { baseDir: '/tmp' });
    expect(own.activity.redactKeys).toEqual(['cookie']);
    expect(
      resolveConfig({ activity_redact_keys: [] }, { baseDir: '/tmp' }).activity.redactKeys,
    ).toEqual([]);
  });

  it('defaults max_request_bytes to 4 MiB', () => {
    expect(resolveConfig({}, { baseDir: '/tmp' }).maxRequestBytes).toBe(4 * 1_048_576);
  });

  it('defaults max_mcp_sessions to 1000 and takes a value in range', () => {
    expect(resolveConfig({}, { baseDir: '/tmp' }).maxMcpSessions).toBe(1000);
    expect(resolveConfig({ max_mcp_sessions: 3 }, { baseDir: '/tmp' }).maxMcpSessions).toBe(3);
  });
});
