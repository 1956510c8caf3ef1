import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_EXECUTION_INPUT_SCHEMA } from '../src/mcp/index.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { FIXTURE_SERVER, ROOT, runCli, SERVERS, until, writeConfig } from './helpers.ts';

const REST_BOTH_OR_NEITHER =
  "Provide exactly one of 'code' (inline source) or 'script' (the name of a stored script)";

const run = promisify(execFile);
let gateway: RunningGateway;
let configFile: string;

const baseConfig = {
  code_execution_pool_size: 10,
  mcpServers: [SERVERS.fixture, SERVERS.everything],
};

beforeAll(async () => {
  configFile = writeConfig(baseConfig);
  gateway = await startGateway(configFile);
  await waitUntilReady(gateway);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
});

async function mcpClient(transport: 'http' | 'sse', headers: Record<string, string> = {}) {
  const client = new Client({ name: 'codemux-test', version: '1.0.0' });
  const requestInit = { headers };
  await client.connect(
    transport === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit })
      : new SSEClientTransport(new URL(`${gateway.url}/sse`), { requestInit }),
  );
  return client;
}

async function callCode(client: Client, args: Record<string, unknown>) {
  const result = await client.callTool({ name: 'code_execution', arguments: args });
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
}

describe('codemux serve', () => {
  it('prints where everything is', () => {
    const out = gateway.output();
    expect(out).toContain(`${gateway.url}/mcp`);
    expect(out).toContain(`${gateway.url}/api/v1`);
    expect(out).toContain(path.join(path.dirname(configFile), 'data', 'api_key'));
    expect(out).toMatch(/fixture\s+ready \(\d+ tools\)/);
  });

  it('answers /healthz without a key, with upstream counts but no names', async () => {
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toEqual({
      ok: true,
      name: 'codemux',
      version: '0.1.0',
      sessions: expect.any(Number),
      upstreams: { ready: 2, connecting: 0, failed: 0, needs_auth: 0 },
      activity: {
        queued: expect.any(Number),
        written: expect.any(Number),
        dropped: 0,
        failed_writes: 0,
      },
    });
  });

  it.each(['http', 'sse'] as const)(
    'serves code_execution over %s to the SDK client',
    async (transport) => {
      const client = await mcpClient(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['code_execution']);
      expect(tools[0]!.inputSchema).toEqual(CODE_EXECUTION_INPUT_SCHEMA);
      expect(tools[0]!.description).toContain('- fixture: echo: Echo the arguments back');
      expect(tools[0]!.description).toContain('- everything:');
      const envelope = await callCode(client, {
        code: "call_tool('everything', 'echo', {message: 'hi'}).result.content[0].text",
      });
      expect(envelope).toEqual({ ok: true, value: 'Echo: hi' });
      await client.close();
    },
  );

  it('ends a Streamable HTTP session when the client terminates it', async () => {
    const sessions = async () =>
      ((await (await fetch(`${gateway.url}/healthz`)).json()) as { sessions: number }).sessions;
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
    const client = new Client({ name: 't', version: '1' });
    await client.connect(transport);
    const open = await sessions();
    expect(open).toBeGreaterThanOrEqual(1);
    await transport.terminateSession();
    await client.close();
    // Other tests' sessions may end meanwhile too; this one must be gone.
    expect(await sessions()).toBeLessThanOrEqual(open - 1);
  });

  it('is usable from the MCP Inspector CLI over HTTP and stdio, as the README runs it', async () => {
    // `npx @modelcontextprotocol/inspector --cli ...` from the repository root, with what npm install installed.
    const inspector = (args: string[]) =>
      run('npx', ['--no-install', '@modelcontextprotocol/inspector', '--cli', ...args], {
        cwd: ROOT,
      });
    const http = await inspector([
      `${gateway.url}/mcp`,
      '--transport',
      'http',
      '--method',
      'tools/call',
      '--tool-name',
      'code_execution',
      '--tool-arg',
      'code=6*7',
    ]);
    expect(JSON.parse(http.stdout).structuredContent).toMatchObject({ ok: true, value: 42 });
    const stdio = await inspector([
      '--method',
      'tools/list',
      '--',
      'node',
      'bin/codemux.js',
      'stdio',
      '--config',
      configFile,
    ]);
    expect(JSON.parse(stdio.stdout).tools[0].name).toBe('code_execution');
  });

  it('refuses web pages on the open loopback /mcp (foreign Host or Origin)', async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${gateway.url}/mcp`);
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    expect(await status({ host: 'evil.example' })).toBe(403);
    expect(await status({ origin: 'https://evil.example' })).toBe(403);
    expect(await status({ origin: 'https://evil.example', 'x-api-key': gateway.key })).not.toBe(
      403,
    );
    expect(await status({})).toBe(400);
  });

  it('runs 50 concurrent executions against a pool of 10', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gateway.rest('POST', '/api/v1/code/exec', {
          code: "call_tool('fixture', 'sleep', {ms: 20}); input.i",
          input: { i },
        }),
      ),
    );
    expect(results.map((r) => r.json.value)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});

describe('REST /api/v1/code/exec', () => {
  it.each([
    [
      { code: '({ result: input.value * 2 })', input: { value: 21 } },
      200,
      { ok: true, value: { result: 42 } },
    ],
    [{ code: "throw new Error('boom')" }, 200, { ok: false, error: { code: 'RUNTIME_ERROR' } }],
    [
      { code: 'while(true){}', options: { timeout_ms: 50 } },
      200,
      { ok: false, error: { code: 'TIMEOUT' } },
    ],
    [{ code: 'var x = {' }, 200, { ok: false, error: { code: 'SYNTAX_ERROR' } }],
    // Both or neither: the REST reference's own words, verbatim.
    [{}, 400, { ok: false, error: { code: 'INVALID_REQUEST', message: REST_BOTH_OR_NEITHER } }],
    [
      { code: '1', script: 'x' },
      400,
      { ok: false, error: { code: 'INVALID_REQUEST', message: REST_BOTH_OR_NEITHER } },
    ],
    [
      { code: '1', options: { timeout_ms: 0 } },
      400,
      { ok: false, error: { code: 'INVALID_OPTIONS' } },
    ],
    [{ code: '1', language: 'cobol' }, 400, { ok: false, error: { code: 'INVALID_LANGUAGE' } }],
    ['{not json', 400, { ok: false, error: { code: 'INVALID_REQUEST' } }],
  ])('%j -> %i', async (body, status, expected) => {
    const response = await gateway.rest('POST', '/api/v1/code/exec', body);
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject(expected);
    expect(response.json.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never drops options on the way', async () => {
    const restricted = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('everything', 'echo', {message: 'x'})",
      options: { allowed_servers: ['fixture'], max_tool_calls: 1 },
    });
    expect(restricted.json.value.error.code).toBe('SERVER_NOT_ALLOWED');
    const budget = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture','echo',{}); call_tool('fixture','echo',{}); call_tool('fixture','echo',{})",
      options: { max_tool_calls: 1 },
    });
    expect(budget.json.error.code).toBe('MAX_TOOL_CALLS_EXCEEDED');
  });

  it('lets an execution run past the old 300 s style server timeouts: the deadline follows timeout_ms', async () => {
    const response = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'sleep', {ms: 1500}).ok",
      options: { timeout_ms: 5000 },
    });
    expect(response.json).toMatchObject({ ok: true, value: true });
  });

  it.each([
    [{}, 'authentication required'],
    [{ 'x-api-key': 'wrong' }, 'not valid'],
  ])('answers 401 with a JSON body for %j', async (headers, message) => {
    const response = await gateway.rest('POST', '/api/v1/code/exec', { code: '1' }, headers);
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('UNAUTHORIZED');
    expect(response.json.error.message).toContain(message);
  });

  it('accepts ?apikey=', async () => {
    const response = await gateway.rest(
      'GET',
      `/api/v1/servers?apikey=${gateway.key}`,
      undefined,
      {},
    );
    expect(response.status).toBe(200);
    expect(response.json.value.servers.map((s: { name: string }) => s.name)).toEqual([
      'fixture',
      'everything',
    ]);
    expect(response.json.value.servers[0]).toMatchObject({
      protocol: 'stdio',
      state: 'ready',
      tools: expect.any(Number),
    });
  });
});

describe('agent tokens', () => {
  let token: string;

  beforeAll(async () => {
    const created = await runCli([
      'token',
      'create',
      '--name',
      'ci-agent',
      '--servers',
      'fixture',
      '--config',
      configFile,
      '-o',
      'json',
    ]);
    expect(created.code).toBe(0);
    token = created.json.token;
  });

  it('are listed without their secret', async () => {
    const listed = await runCli(['token', 'list', '--config', configFile, '-o', 'json']);
    expect(listed.json.tokens).toEqual([
      expect.objectContaining({ name: 'ci-agent', servers: ['fixture'] }),
    ]);
    expect(listed.stdout).not.toContain(token);
  });

  it('refuse a token for an unknown server', async () => {
    const out = await runCli([
      'token',
      'create',
      '--name',
      'x',
      '--servers',
      'nope',
      '--config',
      configFile,
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("unknown server 'nope'");
  });

  it('reach only their servers over REST, dispatching nothing else', async () => {
    const headers = { 'x-api-key': token, 'content-type': 'application/json' };
    const code =
      "[call_tool('fixture','echo',{}).ok, call_tool('everything','echo',{message:'x'}).error, (await tools.everything.echo({message: 'x'})).error.code]";
    const response = await gateway.rest('POST', '/api/v1/code/exec', { code }, headers);
    expect(response.json.value).toEqual([
      true,
      {
        code: 'SERVER_NOT_ALLOWED',
        message: "Server 'everything' is not in the allowed servers list",
      },
      'access_denied',
    ]);
    const widened = await gateway.rest(
      'POST',
      '/api/v1/code/exec',
      {
        code: "call_tool('everything','echo',{message:'x'}).error.code",
        options: { allowed_servers: ['everything'] },
      },
      headers,
    );
    expect(widened.json.value).toBe('SERVER_NOT_ALLOWED');
  });

  it('see only their servers over MCP (Bearer)', async () => {
    const client = await mcpClient('http', { authorization: `Bearer ${token}` });
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toContain('- fixture:');
    expect(tools[0]!.description).not.toContain('- everything:');
    expect(
      await callCode(client, { code: "call_tool('everything','echo',{message:'x'}).error.code" }),
    ).toEqual({
      ok: true,
      value: 'SERVER_NOT_ALLOWED',
    });
    await client.close();
  });

  it('stop working once revoked', async () => {
    const revoked = await runCli(['token', 'revoke', 'ci-agent', '--config', configFile]);
    expect(revoked.code).toBe(0);
    const response = await gateway.rest('GET', '/api/v1/servers', undefined, {
      'x-api-key': token,
    });
    expect(response.status).toBe(401);
  });
});

describe('live upstreams', () => {
  it('reports an upstream killed mid-run clearly and has it back for the next execution', async () => {
    const crashed = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'crash', {})",
    });
    expect(crashed.json.value.ok).toBe(false);
    expect(crashed.json.value.error.code).toBe('SERVER_UNAVAILABLE');
    expect(crashed.json.value.error.message).toContain(
      "server 'fixture' disconnected during crash",
    );
    const next = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'echo', {message: 'back'}).ok",
    });
    expect(next.json).toMatchObject({ ok: true, value: true });
  });

  it('lists tools again when an upstream announces tools/list_changed', async () => {
    const client = await mcpClient('http');
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
    );
    const name = (
      await gateway.rest('POST', '/api/v1/code/exec', {
        code: "call_tool('fixture','add_tool',{}).result.content[0].text",
      })
    ).json.value;
    await changed;
    // tool_pinning "tofu" (the default): a tool added after the first connection is held,
    // listed without its description, until approved (docs/pinning.md).
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toContain(`${name}: (held until an administrator approves it)`);
    expect(tools[0]!.description).not.toContain(`${name}: A tool added at run time`);
    const code = `call_tool('fixture', '${name}', {})`;
    const held = await gateway.rest('POST', '/api/v1/code/exec', { code });
    expect(held.json.value.error.code).toBe('TOOL_CHANGED');
    // The approval names the definition it was shown (its sha256 from the held list).
    const shown = (await gateway.rest('GET', '/api/v1/tools/held')).json.items.find(
      (item: { tool: string }) => item.tool === name,
    );
    expect(
      (
        await gateway.rest('POST', `/api/v1/servers/fixture/tools/${name}/approve`, {
          sha256: shown.sha256,
        })
      ).status,
    ).toBe(200);
    expect((await client.listTools()).tools[0]!.description).toContain(
      `${name}: A tool added at run time`,
    );
    const called = await gateway.rest('POST', '/api/v1/code/exec', {
      code: `${code}.result.content[0].text`,
    });
    expect(called.json.value).toBe(name);
    await client.close();
  });

  it('applies an added server from the watched config without a restart', async () => {
    const raw = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    raw.mcpServers.push({ name: 'added', command: process.execPath, args: [FIXTURE_SERVER] });
    raw.code_execution_max_tool_calls = 3;
    fs.writeFileSync(configFile, JSON.stringify(raw, null, 2));
    await until('the added server answering', async () => {
      const response = await gateway.rest('POST', '/api/v1/code/exec', {
        code: "call_tool('added', 'echo', {message: 'new'}).ok",
      });
      return response.json.value === true ? true : undefined;
    });
    const budget = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "for (let i = 0; i < 10; i++) call_tool('added', 'echo', {})",
    });
    expect(budget.json.error.message).toBe('Exceeded maximum tool calls limit (3)');
  });

  it('ignores an invalid edit and keeps the last good config', async () => {
    const good = fs.readFileSync(configFile, 'utf8');
    fs.writeFileSync(configFile, '{"code_execution_timeout_ms": 0}');
    await until(
      'the edit ignored',
      async () => gateway.output().includes('config edit ignored') || undefined,
    );
    const response = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('added', 'echo', {}).ok",
    });
    expect(response.json.value).toBe(true);
    fs.writeFileSync(configFile, good);
  });
});

describe('the CLI with a running daemon', () => {
  it('code exec runs on the daemon and prints the same JSON', async () => {
    const out = await runCli(
      [
        'code',
        'exec',
        '--config',
        configFile,
        '--log-level',
        'debug',
        '--code',
        'input.a + 1',
        '--input',
        '{"a": 1}',
      ],
      {},
    );
    expect(out.code).toBe(0);
    expect(out.json).toEqual({ ok: true, value: 2 });
    expect(out.stderr).toContain('running on the codemux daemon');
  });

  it('code exec exits 2 for a refusal from the daemon', async () => {
    const out = await runCli([
      'code',
      'exec',
      '--config',
      configFile,
      '--code',
      '1',
      '--timeout',
      '0',
    ]);
    expect(out.code).toBe(2);
    expect(out.json.error.code).toBe('INVALID_OPTIONS');
  });

  it('servers list shows each upstream as a table and as JSON', async () => {
    const table = await runCli(['servers', 'list', '--config', configFile]);
    expect(table.stdout).toMatch(/NAME\s+PROTOCOL\s+STATE\s+TOOLS/);
    expect(table.stdout).toMatch(/fixture\s+stdio\s+ready\s+\d+/);
    const json = await runCli(['servers', 'list', '--config', configFile, '-o', 'json']);
    expect(json.json.servers.find((s: { name: string }) => s.name === 'everything')).toMatchObject({
      state: 'ready',
    });
  });
});

describe('shutdown', () => {
  it('stops on SIGTERM and leaves no upstream child behind', async () => {
    const own = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
    const pid = Number(
      (
        await own.rest('POST', '/api/v1/code/exec', {
          code: "call_tool('fixture','pid',{}).result.content[0].text",
        })
      ).json.value,
    );
    expect(pid).toBeGreaterThan(0);
    expect(await own.stop()).toBe(0);
    // The child is ended as the gateway stops; its exit may be reported a moment after.
    await until('the upstream child gone', async () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
  });
});

describe('enable_code_execution: false', () => {
  let off: RunningGateway;
  beforeAll(async () => {
    off = await startGateway(
      writeConfig({ enable_code_execution: false, mcpServers: [SERVERS.fixture] }),
    );
  });
  afterAll(async () => {
    await off.stop();
  });

  it('refuses on REST with 403', async () => {
    const response = await off.rest('POST', '/api/v1/code/exec', { code: '1' });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('FEATURE_DISABLED');
  });

  it('lists a disabled code_execution over MCP that explains how to enable it, and refuses calls', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${off.url}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools[0]!.description).toContain('"enable_code_execution": true');
    const result = await client.callTool({ name: 'code_execution', arguments: { code: '1' } });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text).error.code).toBe(
      'FEATURE_DISABLED',
    );
    await client.close();
  });

  it('refuses from the CLI (daemon and standalone alike)', async () => {
    const out = await runCli(['code', 'exec', '--config', off.configFile, '--code', '1']);
    expect(out.code).toBe(2);
    expect(out.json.error.code).toBe('FEATURE_DISABLED');
  });
});

describe('require_mcp_auth', () => {
  let locked: RunningGateway;
  beforeAll(async () => {
    locked = await startGateway(writeConfig({ require_mcp_auth: true, mcpServers: [] }));
  });
  afterAll(async () => {
    await locked.stop();
  });

  it('refuses /mcp without a key and accepts a Bearer admin key', async () => {
    const denied = await fetch(`${locked.url}/mcp`, { method: 'POST', body: '{}' });
    expect(denied.status).toBe(401);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${locked.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${locked.key}` } },
      }),
    );
    expect((await client.listTools()).tools).toHaveLength(1);
    await client.close();
  });
});
