/**
 * The HTTP/MCP surfaces against a real `codemux serve`: keyless loopback Host/Origin checks,
 * max_request_bytes on every route, what an agent token sees of a failing server, the feature
 * switch on /mcp/codemode and `stdio --codemode`, logging/setLevel and resumable SSE streams.
 */
import http from 'node:http';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { BIN, initializeBody, runCli, SERVERS, settle, writeConfig } from './helpers.ts';

/** A stdio "server" that dies at start, leaving a host path and Node's internal frames on stderr. */
const BROKEN = {
  name: 'broken',
  command: process.execPath,
  args: ['-e', "throw new Error('cannot open /srv/secret/credentials.json')"],
};
const MAX_REQUEST_BYTES = 65_536;

interface RawAnswer {
  status: number;
  body: string;
}

/** One HTTP request to the gateway. */
function raw(
  gateway: RunningGateway,
  options: { method: string; path: string; headers?: Record<string, string> },
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: options.path,
        method: options.method,
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        answered = true;
        let text = '';
        res.on('data', (d) => {
          text += d;
          // An open SSE stream never ends: its status is enough.
          if (res.headers['content-type']?.includes('text/event-stream')) {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', (error) => (answered ? undefined : reject(error)));
    req.end(body);
  });
}

/**
 * POSTs `count` pieces of `chunk` (chunked, or with a Content-Length) on a raw socket, and stops
 * writing once the gateway answers: the answer is read as soon as it is complete, even when
 * the gateway refused the body long before the client finished sending it.
 */
function streamed(
  gateway: RunningGateway,
  path: string,
  headers: Record<string, string>,
  chunk: string,
  count: number,
  framing: 'chunked' | 'content-length' = 'chunked',
): Promise<RawAnswer> {
  const url = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let text = '';
    let sent = 0;
    let settled = false;
    const answer = (): RawAnswer | undefined => {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const head = text.slice(0, end);
      const body = text.slice(end + 4);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      if (!length || Buffer.byteLength(body) < Number(length[1])) return undefined;
      return { status: Number(head.split(' ')[1]), body };
    };
    socket.on('data', (d) => {
      text += d;
      const complete = answer();
      if (complete && !settled) {
        settled = true;
        socket.destroy();
        resolve(complete);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (!settled) reject(new Error(`no complete HTTP answer: ${JSON.stringify(text)}`));
    });
    const head = Object.entries({ ...headers, 'content-type': 'application/json' })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const length =
      framing === 'chunked'
        ? 'transfer-encoding: chunked'
        : `content-length: ${Buffer.byteLength(chunk) * count}`;
    const frame =
      framing === 'chunked' ? `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n` : chunk;
    socket.on('connect', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${length}\r\n${head}\r\n`);
      // No end(): a half-closed socket would make the server drop the request.
      const pump = () => {
        while (text === '' && sent < count && !socket.destroyed) {
          sent++;
          if (!socket.write(frame)) return void socket.once('drain', pump);
        }
        if (text === '' && sent === count && framing === 'chunked') socket.write('0\r\n\r\n');
      };
      pump();
    });
  });
}

// The Host/Origin table of the keyless routes runs in process: http-loopback.test.ts.
describe('the open loopback routes over the socket', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(writeConfig({ mcpServers: [] }));
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const port = () => new URL(gateway.url).port;

  it('refuses a rebinding Host on the legacy SSE stream too', async () => {
    const headers = { host: `127.0.0.1.nip.io:${port()}` };
    expect((await raw(gateway, { method: 'GET', path: '/sse', headers })).status).toBe(403);
    const ok = await raw(gateway, {
      method: 'GET',
      path: '/sse',
      headers: { accept: 'text/event-stream' },
    });
    expect(ok.status).toBe(200);
  });
});

describe('max_request_bytes', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(
      writeConfig({ max_request_bytes: MAX_REQUEST_BYTES, mcpServers: [SERVERS.fixture] }),
    );
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  // [route, JSON shape of the 413]
  const routes: Array<[string, 'rest' | 'jsonrpc']> = [
    ['/api/v1/code/exec', 'rest'],
    ['/mcp', 'jsonrpc'],
    ['/messages?sessionId=x', 'jsonrpc'],
    ['/mcp/codemode', 'jsonrpc'],
    ['/mcp/codemode/messages?sessionId=x', 'jsonrpc'],
  ];
  const check = (answer: RawAnswer, shape: 'rest' | 'jsonrpc') => {
    expect(answer.status).toBe(413);
    const json = JSON.parse(answer.body);
    const error = shape === 'rest' ? json.error : json.error.data;
    expect(error.code).toBe('REQUEST_TOO_LARGE');
    expect(json.error.message).toContain(`max_request_bytes (${MAX_REQUEST_BYTES} bytes)`);
  };
  const headers = () => ({ 'x-api-key': gateway.key });

  it.each(routes)(
    '%s: a chunked body over the limit is 413 before it is read whole',
    async (path, shape) => {
      // 64 MiB offered in 16 KiB chunks; the gateway answers long before.
      check(await streamed(gateway, path, headers(), 'x'.repeat(16_384), 4096), shape);
    },
  );

  it.each(routes)('%s: a declared Content-Length over the limit is 413', async (path, shape) => {
    const answer = await streamed(
      gateway,
      path,
      headers(),
      'x'.repeat(MAX_REQUEST_BYTES + 1),
      1,
      'content-length',
    );
    check(answer, shape);
    expect(answer.body).toContain(`(${MAX_REQUEST_BYTES + 1} bytes)`);
  });

  it('runs a request under the limit, and REST takes a Bearer key', async () => {
    const body = JSON.stringify({ code: 'input.s.length', input: { s: 'y'.repeat(60_000) } });
    const answer = await streamed(
      gateway,
      '/api/v1/code/exec',
      { authorization: `Bearer ${gateway.key}` },
      body,
      1,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).value).toBe(60_000);
  });
});

describe('an input too large for the sandbox', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(
      writeConfig({ code_execution_memory_limit_mb: 4, mcpServers: [] }),
    );
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('is INVALID_REQUEST naming input, its size and the cap, not MEMORY_LIMIT_EXCEEDED', async () => {
    // 3 MB of small numbers: about 10 times that once parsed (docs/engine.md).
    const input = { rows: new Array(1_500_000).fill(1) };
    const bytes = Buffer.byteLength(JSON.stringify({ input }));
    const { status, json } = await gateway.rest('POST', '/api/v1/code/exec', { code: '1', input });
    expect(json.error.code).toBe('INVALID_REQUEST');
    expect(json.error.message).toContain(
      `input is too large for the sandbox: ${bytes} bytes of JSON do not fit, once parsed, in its memory cap of 4 MB (code_execution_memory_limit_mb)`,
    );
    expect(status).toBe(400);
  });

  it('runs a 3 MB string, which fits under the 4 MB cap', async () => {
    const input = { s: 'z'.repeat(3 * 1_048_576) };
    const { json } = await gateway.rest('POST', '/api/v1/code/exec', {
      code: 'input.s.length',
      input,
    });
    expect(json).toMatchObject({ ok: true, value: 3 * 1_048_576 });
  });
});

describe('what an agent token sees', () => {
  let gateway: RunningGateway;
  let token: string;
  beforeAll(async () => {
    const configFile = writeConfig({ mcpServers: [SERVERS.fixture, BROKEN] });
    gateway = await startGateway(configFile);
    const created = await runCli([
      'token',
      'create',
      '--name',
      'agent',
      '--servers',
      'fixture,broken',
      '--config',
      configFile,
      '-o',
      'json',
    ]);
    token = created.json.token;
    await settle(
      async () => (await gateway.rest('GET', '/api/v1/servers')).json.value.servers,
      (servers: Array<{ state: string }>) => servers.some((s) => s.state === 'failed'),
      10_000,
    );
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const hostDetails = [/\/srv\/secret/, /node:internal/, /stderr ends with/];
  const as = (who: 'admin' | 'agent') => ({
    'content-type': 'application/json',
    'x-api-key': who === 'admin' ? gateway.key : token,
  });

  it('GET /api/v1/servers: the admin sees the stderr tail, a token does not', async () => {
    const admin = await gateway.rest('GET', '/api/v1/servers', undefined, as('admin'));
    const agent = await gateway.rest('GET', '/api/v1/servers', undefined, as('agent'));
    const lastError = (r: typeof admin) =>
      r.json.value.servers.find((s: { name: string }) => s.name === 'broken').last_error as string;
    expect(lastError(admin)).toMatch(/stderr ends with[\s\S]*\/srv\/secret/);
    expect(lastError(agent)).toContain("server 'broken' failed to start");
    for (const detail of hostDetails) expect(lastError(agent)).not.toMatch(detail);
    expect(gateway.output()).toContain('/srv/secret');
  });

  it("a per-call error: the admin sees the host's details, a token does not", async () => {
    const body = { code: "call_tool('broken', 'anything', {})" };
    const admin = await gateway.rest('POST', '/api/v1/code/exec', body, as('admin'));
    const agent = await gateway.rest('POST', '/api/v1/code/exec', body, as('agent'));
    expect(admin.json.value.error.message).toContain('/srv/secret');
    expect(agent.json.value.error.code).toBe('SERVER_UNAVAILABLE');
    for (const detail of hostDetails) expect(JSON.stringify(agent.json)).not.toMatch(detail);
  });

  it('the async dialect on /mcp/codemode: a token sees no host details', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/codemode`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const result = await client.callTool({
      name: 'execute',
      arguments: { code: 'return await tools.broken.anything({})' },
    });
    const text = JSON.stringify(result.structuredContent);
    expect(text).toContain('upstream_error');
    for (const detail of hostDetails) expect(text).not.toMatch(detail);
    await client.close();
  });
});

describe('enable_code_execution: false covers every surface', () => {
  let gateway: RunningGateway;
  let token: string;
  let configFile: string;
  beforeAll(async () => {
    configFile = writeConfig({ enable_code_execution: false, mcpServers: [SERVERS.fixture] });
    gateway = await startGateway(configFile);
    const created = await runCli([
      'token',
      'create',
      '--name',
      'agent',
      '--servers',
      'fixture',
      '--config',
      configFile,
      '-o',
      'json',
    ]);
    token = created.json.token;
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const callExecute = async (client: Client) => {
    const result = await client.callTool({ name: 'execute', arguments: { code: 'return 1' } });
    expect(result.isError).toBe(true);
    const structured = result.structuredContent as {
      status: string;
      error: { code: string; message: string };
    };
    expect(structured.status).toBe('error');
    expect(structured.error.code).toBe('FEATURE_DISABLED');
    return structured.error.message;
  };

  it.each([
    ['the admin', true],
    ['an agent token', false],
  ])(
    '/mcp/codemode refuses execute for %s (the path shown to the admin only)',
    async (_who, admin) => {
      const client = new Client({ name: 't', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/codemode`), {
          requestInit: { headers: { 'x-api-key': admin ? gateway.key : token } },
        }),
      );
      const message = await callExecute(client);
      const { tools } = await client.listTools();
      if (admin) {
        expect(message).toContain(configFile);
      } else {
        expect(message).not.toContain('/');
        expect(tools[0]!.description).not.toContain(configFile);
      }
      expect(tools[0]!.description).toContain('disabled');
      await client.close();
    },
  );

  it('a token is told FEATURE_DISABLED on /mcp without the config path', async () => {
    const { json } = await gateway.rest(
      'POST',
      '/api/v1/code/exec',
      { code: '1' },
      {
        'content-type': 'application/json',
        'x-api-key': token,
      },
    );
    expect(json.error.code).toBe('FEATURE_DISABLED');
    expect(json.error.message).not.toContain(configFile);
  });

  it('`codemux stdio --codemode` refuses execute', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'stdio', '--codemode', '--config', configFile],
        stderr: 'ignore',
      }),
    );
    await callExecute(client);
    await client.close();
  });
});

describe('MCP logging and resumable streams', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('accepts logging/setLevel and forwards upstream logs at the level set', async () => {
    const client = new Client({ name: 't', version: '1' });
    const received: Array<{ level: string; data: unknown }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      received.push({ level: n.params.level, data: n.params.data });
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.setLoggingLevel('warning');
    const code = `call_tool('fixture', 'log', {level: 'info', data: 'quiet'});
      call_tool('fixture', 'log', {level: 'error', data: 'loud'}); 1`;
    const result = await client.callTool({ name: 'code_execution', arguments: { code } });
    expect(result.isError).toBeFalsy();
    // Notifications come in order: once 'loud' is here, a 'quiet' sent before it would be too.
    await settle(
      async () => received.length,
      (n) => n > 0,
      2_500,
      50,
    );
    expect(received).toEqual([{ level: 'error', data: 'loud' }]);
    await client.close();
  });

  it('starts each POST SSE stream with a priming event id and a retry field', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const init = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers,
      body: initializeBody(),
    });
    const session = init.headers.get('mcp-session-id')!;
    expect(await init.text()).toMatch(/^id: \S+\nretry: \d+\n/);
    // A request that may stream (ping and plain tools/call are answered in JSON: request-path.test.ts).
    const setLevel = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'logging/setLevel',
        params: { level: 'info' },
      }),
    });
    const text = await setLevel.text();
    expect(text).toMatch(/^id: \S+\nretry: \d+\n/);
    expect(text).toMatch(/id: \S+\ndata: \{"result":\{\},"jsonrpc":"2.0","id":2\}/);
    await fetch(`${gateway.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
  });
});
