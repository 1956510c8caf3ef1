/**
 * The bounds on MCP session state against a real `codemux serve`: `max_mcp_sessions` per
 * endpoint set, and the per-session replay buffer of streamed events (Last-Event-ID).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { initializeBody, SERVERS, until, writeConfig } from './helpers.ts';

const PROTOCOL = '2025-11-25';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL,
};
const INITIALIZE = initializeBody();

async function connect(gateway: RunningGateway, path = '/mcp') {
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`));
  const client = new Client({ name: 't', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

describe('max_mcp_sessions', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(writeConfig({ mcpServers: [], max_mcp_sessions: 2 }));
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('refuses a session beyond the limit with 503 naming the field, until one ends', async () => {
    const first = await connect(gateway);
    const second = await connect(gateway);
    await expect(connect(gateway)).rejects.toThrow(/max_mcp_sessions/);

    const refused = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: HEADERS,
      body: INITIALIZE,
    });
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { message: string; data: unknown } };
    expect(body.error.message).toContain('/mcp already holds 2, the limit "max_mcp_sessions"');
    expect(body.error.data).toEqual({ code: 'TOO_MANY_SESSIONS', max_mcp_sessions: 2 });
    // The legacy SSE transport is the same endpoint set.
    const sse = await fetch(`${gateway.url}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(sse.status).toBe(503);
    expect(await sse.json()).toMatchObject({ error: { data: { code: 'TOO_MANY_SESSIONS' } } });
    // Code mode is a set of its own.
    const codeMode = await connect(gateway, '/mcp/codemode');

    await first.transport.terminateSession();
    await first.client.close();
    const third = await connect(gateway);
    expect((await third.client.listTools()).tools.map((t) => t.name)).toContain('code_execution');
    for (const { client } of [second, third, codeMode]) await client.close();
  });
});

/** Reads an SSE body, collecting the id of each event that carries data. */
function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ids: string[] = [];
  let text = '';
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const id = /^id: (.*)$/m.exec(event)?.[1];
        if (id && /^data: \S/m.test(event)) ids.push(id);
      }
    }
  })();
  return {
    ids,
    async until(count: number) {
      await until(
        `${count} events`,
        async () => (ids.length >= count ? true : undefined),
        30_000,
        20,
      );
    },
    async cancel() {
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}

describe('the replay buffer of a session', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
    await waitUntilReady(gateway);
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('keeps the newest upstream logs within its byte budget; an older resume is refused', async () => {
    const init = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: HEADERS,
      body: INITIALIZE,
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...HEADERS, 'mcp-session-id': session };
    await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const get = (lastEventId?: string) =>
      fetch(`${gateway.url}/mcp`, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': PROTOCOL,
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
      });
    const stream = sseReader(await get());

    // Twelve 1 MiB log lines reach every session's standalone stream: 12 MiB against 8 MiB.
    const code = `for (let i = 0; i < 12; i++)
      call_tool('fixture', 'log', {level: 'error', data: String(i).padEnd(1048576, 'x')}); 1`;
    const run = await gateway.rest('POST', '/api/v1/code/exec', { code });
    expect(run.json.ok).toBe(true);
    await stream.until(12);
    await stream.cancel();
    const logs = stream.ids.slice(-12);

    // The stream's cancel reaches the gateway soon; until then a resume is a 409 conflict.
    const resume = (id: string) =>
      until(
        'the stream released',
        async () => {
          const response = await get(id);
          if (response.status !== 409) return response;
          await response.body?.cancel();
          return undefined;
        },
        15_000,
        50,
      );
    const lost = await resume(logs[0]!);
    expect(lost.status).toBe(400);
    const { error } = (await lost.json()) as { error: { message: string } };
    expect(error.message).toContain(
      `Cannot resume after event ${logs[0]}: later events of its stream are no longer stored`,
    );

    const kept = sseReader(await resume(logs[10]!));
    await kept.until(1);
    expect(kept.ids[0]).toBe(logs[11]);
    await kept.cancel();
    await fetch(`${gateway.url}/mcp`, { method: 'DELETE', headers });
  });
});
