/**
 * The lean request path over Streamable HTTP, against a real `codemux serve`: requests that can
 * never need a stream are answered in plain JSON, every other POST keeps its SSE stream with the
 * priming event, both kinds at once on one session; tools/call params are checked once, with
 * errors that name the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, untilInFlight } from './gateway.ts';
import { initializeBody, SERVERS, writeConfig } from './helpers.ts';

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const PRIMING = /^id: \S+\nretry: \d+\n/;

let gateway: RunningGateway;
let session: string;

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, ...headers },
    body: JSON.stringify(body),
  });
  return { type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** The JSON-RPC message with `id` in a JSON or SSE answer. */
function message(answer: { type: string; text: string }, id: number) {
  if (answer.type.startsWith('application/json')) return JSON.parse(answer.text);
  for (const line of answer.text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: ') continue;
    const parsed = JSON.parse(line.slice(6));
    if (parsed.id === id) return parsed;
  }
  return undefined;
}

beforeAll(async () => {
  gateway = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  const init = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: HEADERS,
    body: initializeBody('request-path', 0),
  });
  session = init.headers.get('mcp-session-id')!;
  await init.text();
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
});
afterAll(async () => {
  await fetch(`${gateway.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
  await gateway?.stop();
});

const exec = (code: string, meta?: Record<string, unknown>) => ({
  name: 'code_execution',
  arguments: { code },
  ...(meta ? { _meta: meta } : {}),
});

describe('answers in JSON or over SSE', () => {
  // [case, method, params, accept, expected answer]
  const rows: Array<[string, string, unknown, string | undefined, 'json' | 'sse']> = [
    ['ping', 'ping', undefined, undefined, 'json'],
    [
      'ping, event-stream listed first',
      'ping',
      undefined,
      'text/event-stream, application/json',
      'json',
    ],
    ['tools/list', 'tools/list', {}, undefined, 'json'],
    ['code_execution', 'tools/call', exec('6 * 7'), undefined, 'json'],
    [
      'code_execution asking for progress',
      'tools/call',
      exec('6 * 7', { progressToken: 'p1' }),
      undefined,
      'sse',
    ],
    [
      'the reconnection probe',
      'tools/call',
      { name: 'test_reconnection', arguments: {} },
      undefined,
      'sse',
    ],
    ['logging/setLevel', 'logging/setLevel', { level: 'info' }, undefined, 'sse'],
  ];
  let id = 100;
  it.each(rows)('%s', async (_case, method, params, accept, expected) => {
    const requestId = ++id;
    const answer = await post(
      { jsonrpc: '2.0', id: requestId, method, ...(params === undefined ? {} : { params }) },
      accept ? { accept } : {},
    );
    if (expected === 'json') {
      expect(answer.type).toMatch(/^application\/json/);
      expect(message(answer, requestId)).toMatchObject({ jsonrpc: '2.0', id: requestId });
    } else {
      expect(answer.type).toMatch(/^text\/event-stream/);
      expect(answer.text).toMatch(PRIMING);
    }
    if (method === 'tools/call' && params && (params as { name: string }).name === 'code_execution')
      expect(JSON.stringify(message(answer, requestId).result)).toContain('42');
  });

  it('a batch keeps its stream', async () => {
    const answer = await post([
      { jsonrpc: '2.0', id: 201, method: 'ping' },
      { jsonrpc: '2.0', id: 202, method: 'ping' },
    ]);
    expect(answer.type).toMatch(/^text\/event-stream/);
    expect(message(answer, 202)).toMatchObject({ result: {} });
  });

  it('JSON and SSE requests in flight at once on one session each get their own answer', async () => {
    const slow = post({
      jsonrpc: '2.0',
      id: 301,
      method: 'tools/call',
      params: exec("call_tool('fixture', 'sleep', {ms: 300}); 'slept'"),
    });
    const streamed = post({
      jsonrpc: '2.0',
      id: 302,
      method: 'tools/call',
      params: exec("call_tool('fixture', 'sleep', {ms: 200}); 'streamed'", { progressToken: 't' }),
    });
    const pings = Array.from({ length: 5 }, (_, i) =>
      post({ jsonrpc: '2.0', id: 310 + i, method: 'ping' }),
    );
    const [a, b, ...p] = await Promise.all([slow, streamed, ...pings]);
    expect(a.type).toMatch(/^application\/json/);
    expect(JSON.stringify(message(a, 301).result)).toContain('slept');
    expect(b.type).toMatch(/^text\/event-stream/);
    expect(JSON.stringify(message(b, 302).result)).toContain('streamed');
    p.forEach((answer, i) => {
      expect(answer.type).toMatch(/^application\/json/);
      expect(message(answer, 310 + i)).toMatchObject({ result: {} });
    });
  });

  it('a JSON request still running when its session is deleted is answered with an error', async () => {
    const other = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: HEADERS,
      body: initializeBody('closing', 0),
    });
    const id = other.headers.get('mcp-session-id')!;
    await other.text();
    const pending = fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': id },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: exec("call_tool('fixture', 'sleep', {ms: 5000}); 'late'"),
      }),
    });
    await untilInFlight(gateway);
    await fetch(`${gateway.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    const answer = await pending;
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toMatchObject({
      id: 7,
      error: { code: -32000, message: expect.stringMatching(/session closed/) },
    });
  });

  it('a body that is not JSON is a parse error', async () => {
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': session },
      body: '{"jsonrpc": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe('tools/call params, checked once', () => {
  // [case, params, what the message names]
  const rows: Array<[string, unknown, RegExp]> = [
    ['no params', undefined, /params must be an object/],
    ['no name', { arguments: { code: '1' } }, /params\.name must be a string/],
    ['a numeric name', { name: 7, arguments: {} }, /params\.name must be a string/],
    [
      'arguments an array',
      { name: 'code_execution', arguments: [] },
      /params\.arguments must be an object.*an array/,
    ],
    [
      'arguments a string',
      { name: 'code_execution', arguments: '1' },
      /params\.arguments must be an object.*string/,
    ],
    [
      'arguments null',
      { name: 'code_execution', arguments: null },
      /params\.arguments must be an object.*null/,
    ],
  ];
  let id = 400;
  it.each(rows)('%s: InvalidParams naming the field', async (_case, params, named) => {
    const requestId = ++id;
    const answer = await post({
      jsonrpc: '2.0',
      id: requestId,
      method: 'tools/call',
      ...(params === undefined ? {} : { params }),
    });
    const { error } = message(answer, requestId);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(named);
  });

  it('arguments left out are an empty object, answered by code_execution itself', async () => {
    const answer = await post({
      jsonrpc: '2.0',
      id: 450,
      method: 'tools/call',
      params: { name: 'code_execution' },
    });
    expect(JSON.stringify(message(answer, 450))).toMatch(/code/);
  });
});
