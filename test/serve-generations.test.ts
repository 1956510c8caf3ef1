/**
 * codemux serves clients of both MCP generations on the same endpoints: a 2026-07-28 client
 * (the 2.x SDK, `versionNegotiation: auto`: server/discover, no initialize, no session) and a
 * 2025-11-25 client (the 1.x SDK: initialize, a session) on /mcp, /mcp/codemode and
 * `codemux stdio`; agent tokens scope both alike; tool changes reach a 2026 client on its
 * subscriptions/listen stream; and a 2026 client's calls succeed on two instances taken in turn,
 * as behind a round-robin balancer with no session affinity.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  Client,
  type FetchLike,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, SERVERS, writeConfig } from './helpers.ts';

const ECHO = "call_tool('fixture', 'echo', {message: 'hi'})";
const MODERN = '2026-07-28';

function modernClient(): Client {
  return new Client(
    { name: 'modern-test', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
}

async function connectModern(
  url: string,
  options: { headers?: Record<string, string>; fetch?: FetchLike } = {},
): Promise<Client> {
  const client = modernClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: options.headers },
      fetch: options.fetch,
    }),
  );
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: tool results
const structured = (result: any) => result.structuredContent as Record<string, any>;

let gw: RunningGateway;
let configFile: string;

beforeAll(async () => {
  configFile = writeConfig({
    mcpServers: [SERVERS.fixture, { ...SERVERS.fixture, name: 'other' }],
    api_key: 'generations-key',
  });
  gw = await startGateway(configFile);
  await waitUntilReady(gw);
});

afterAll(async () => {
  await gw?.stop();
});

describe('a 2026-07-28 client over HTTP', () => {
  it('discovers /mcp, lists with ttlMs and cacheScope in a stable order, and calls without a session', async () => {
    for (const name of ['zeta_tool', 'alpha_tool']) {
      expect((await gw.rest('POST', '/api/v1/code-tools', { name, code: '1' })).status).toBe(201);
    }
    const client = await connectModern(`${gw.url}/mcp`);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(client.getDiscoverResult()?.capabilities.tools).toEqual({ listChanged: true });
      const first = await client.request({ method: 'tools/list', params: {} });
      expect(first.ttlMs).toBe(60_000);
      expect(first.cacheScope).toBe('private');
      expect(first.tools.map((t) => t.name)).toEqual(['code_execution', 'alpha_tool', 'zeta_tool']);
      const again = await client.request({ method: 'tools/list', params: {} });
      expect(again.tools).toEqual(first.tools);
      const result = await client.callTool({ name: 'code_execution', arguments: { code: ECHO } });
      expect(structured(result).ok).toBe(true);
      expect(structured(result).tool_calls[0]).toMatchObject({ server: 'fixture', ok: true });
      const code = await client.callTool({ name: 'alpha_tool', arguments: {} });
      expect(code.isError).toBeFalsy();
    } finally {
      await client.close();
      for (const name of ['zeta_tool', 'alpha_tool'])
        await gw.rest('DELETE', `/api/v1/code-tools/${name}`);
    }
  });

  it('is answered with no mcp-session-id, and a session id is never required', async () => {
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'code_execution',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'code_execution',
          arguments: { code: '6 * 7' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const text = await response.text();
    expect(text).toContain('"value":42');
  });

  it('serves execute on /mcp/codemode', async () => {
    const client = await connectModern(`${gw.url}/mcp/codemode`);
    try {
      const list = await client.request({ method: 'tools/list', params: {} });
      expect(list.tools.map((t) => t.name)).toEqual(['execute']);
      const result = await client.callTool({
        name: 'execute',
        arguments: { code: "return await tools.fixture.echo({message: 'hi'})" },
      });
      expect(structured(result).status).toBe('completed');
      // The 2026-07-28 spec reuses -32002: the SDK sends an unknown tool as -32602.
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("Tool 'nope' not found"),
      });
    } finally {
      await client.close();
    }
  });

  it('scopes an agent token as on the session path, and refuses a wrong one with 401', async () => {
    const created = await gw.rest('POST', '/api/v1/tokens', {
      name: 'gen-agent',
      servers: ['other'],
    });
    const token = created.json.token ?? created.json.value?.token;
    const client = await connectModern(`${gw.url}/mcp`, {
      headers: { authorization: `Bearer ${token}` },
    });
    try {
      const list = await client.request({ method: 'tools/list', params: {} });
      const description = list.tools[0]?.description ?? '';
      expect(description).toContain('other');
      expect(description).not.toMatch(/\bfixture\b/);
      const result = await client.callTool({ name: 'code_execution', arguments: { code: ECHO } });
      expect(JSON.stringify(structured(result))).toMatch(/fixture/);
      expect(JSON.stringify(structured(result))).toMatch(/"ok":false/);
    } finally {
      await client.close();
    }
    const wrong = modernClient();
    await expect(
      wrong.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
          requestInit: { headers: { authorization: 'Bearer nope' } },
        }),
      ),
    ).rejects.toThrow(/401/);
  });

  it('gets the upstream log lines of its own call at the level its request names, none unasked', async () => {
    const client = await connectModern(`${gw.url}/mcp`);
    const lines: unknown[] = [];
    client.setNotificationHandler('notifications/message', async (n) => {
      lines.push(n.params);
    });
    const code =
      "call_tool('fixture', 'log', {level: 'warning', data: 'w1'}); call_tool('fixture', 'log', {level: 'debug', data: 'd1'}); 1";
    try {
      await client.callTool({ name: 'code_execution', arguments: { code } });
      expect(lines).toEqual([]);
      await client.request({
        method: 'tools/call',
        params: {
          name: 'code_execution',
          arguments: { code },
          _meta: { 'io.modelcontextprotocol/logLevel': 'info' },
        },
      });
      expect(lines).toEqual([{ level: 'warning', logger: 'fixture-log', data: 'w1' }]);
    } finally {
      await client.close();
    }
  });

  it('hears a tool change on its subscriptions/listen stream', async () => {
    const client = await connectModern(`${gw.url}/mcp`);
    try {
      let changed!: () => void;
      const heard = new Promise<void>((resolve) => {
        changed = resolve;
      });
      client.setNotificationHandler('notifications/tools/list_changed', async () => changed());
      await client.listen({ toolsListChanged: true });
      expect(
        (await gw.rest('POST', '/api/v1/code-tools', { name: 'fresh_tool', code: '1' })).status,
      ).toBe(201);
      await heard;
      const list = await client.request({ method: 'tools/list', params: {} });
      expect(list.tools.map((t) => t.name)).toContain('fresh_tool');
    } finally {
      await client.close();
      await gw.rest('DELETE', '/api/v1/code-tools/fresh_tool');
    }
  });
});

describe('a 2025-11-25 client on the same endpoint', () => {
  it('keeps its session on /mcp', async () => {
    const client = new LegacyClient({ name: 'legacy-test', version: '1' });
    const transport = new LegacyHttp(new URL(`${gw.url}/mcp`));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/\./);
      expect(client.getServerCapabilities()).toEqual({
        tools: { listChanged: true },
        logging: {},
        // MCP tasks (2025-11-25): tools/call tasks, listed and cancelled.
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      });
      const result = await client.callTool({ name: 'code_execution', arguments: { code: ECHO } });
      expect(structured(result).ok).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('codemux stdio', () => {
  const params = () => ({
    command: process.execPath,
    args: [BIN, 'stdio', '--config', configFile, '--log-level', 'warn'],
  });

  it('serves a 2026-07-28 client', async () => {
    const client = modernClient();
    await client.connect(new StdioClientTransport(params()));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const list = await client.request({ method: 'tools/list', params: {} });
      expect(list.tools.map((t) => t.name)).toEqual(['code_execution']);
      expect(list.cacheScope).toBe('private');
      const result = await client.callTool({ name: 'code_execution', arguments: { code: ECHO } });
      expect(structured(result).ok).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('serves a 2025-11-25 client as before, code mode too', async () => {
    const client = new LegacyClient({ name: 'legacy-stdio', version: '1' });
    await client.connect(new LegacyStdio({ ...params(), args: [...params().args, '--codemode'] }));
    try {
      expect(client.getServerVersion()?.name).toBe('codemux-codemode');
      const list = await client.listTools();
      expect(list.tools.map((t) => t.name)).toEqual(['execute']);
      const result = await client.callTool({
        name: 'execute',
        arguments: { code: "return await tools.fixture.echo({message: 'hi'})" },
      });
      expect(structured(result).status).toBe('completed');
    } finally {
      await client.close();
    }
  });
});

describe('two instances behind a round-robin balancer', () => {
  let second: RunningGateway;

  beforeAll(async () => {
    const file = writeConfig({ mcpServers: [SERVERS.fixture], api_key: 'generations-key' });
    second = await startGateway(file);
    await waitUntilReady(second);
  });

  afterAll(async () => {
    await second?.stop();
  });

  it('answers a 2026-07-28 client whose every request goes to the next instance', async () => {
    const targets = [gw.url, second.url];
    const hits = [0, 0];
    let next = 0;
    // A balancer with no affinity: each request to the next instance in turn.
    const roundRobin: FetchLike = (input, init) => {
      const i = next++ % targets.length;
      hits[i] = (hits[i] ?? 0) + 1;
      const url = new URL(String(input instanceof Request ? input.url : input));
      return fetch(`${targets[i] ?? gw.url}${url.pathname}${url.search}`, init);
    };
    const client = await connectModern('http://balancer.invalid/mcp', {
      headers: { 'x-api-key': 'generations-key' },
      fetch: roundRobin,
    });
    try {
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({
          name: 'code_execution',
          arguments: { code: `call_tool('fixture', 'echo', {message: 'n${i}'})` },
        });
        expect(structured(result).ok, JSON.stringify(result)).toBe(true);
      }
    } finally {
      await client.close();
    }
    expect(hits[0]).toBeGreaterThanOrEqual(3);
    expect(hits[1]).toBeGreaterThanOrEqual(3);
    for (const instance of [gw, second]) {
      const { json } = await instance.rest('GET', '/api/v1/activity?limit=50');
      expect(JSON.stringify(json.items)).toMatch(/n\d/);
    }
  });
});

// The config file is the test's own temp dir.
afterAll(() => {
  fs.rmSync(path.dirname(configFile), { recursive: true, force: true });
});
