import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ModernMcp } from './modern-mcp.ts';

const meta = (version: unknown) => ({
  _meta: {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
  },
});
const request = (method: string, params?: object, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
const init = (extra: object = {}) =>
  request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'a', version: '1' },
    ...extra,
  });

/** Bodies of every shape, with the MCP-Protocol-Version header some of them carry. */
const CASES: Array<[string, unknown, string?]> = [
  ['initialize', init()],
  ['initialize claiming 2026', init(meta('2026-07-28'))],
  ['initialize claiming 2025', init(meta('2025-11-25'))],
  ['initialize claiming a number', init(meta(123))],
  ['initialize claiming nonsense', init(meta('banana'))],
  ['initialize with a 2026 header', init(), '2026-07-28'],
  ['tools/call claiming 2026', request('tools/call', { name: 'x', ...meta('2026-07-28') })],
  ['tools/call claiming 2025', request('tools/call', { name: 'x', ...meta('2025-11-25') })],
  ['tools/call claiming null', request('tools/call', { name: 'x', ...meta(null) })],
  ['tools/call, _meta null', request('tools/call', { name: 'x', _meta: null })],
  [
    'tools/call, _meta without a claim',
    request('tools/call', { name: 'x', _meta: { progressToken: 1 } }),
  ],
  ['tools/call, 2026 header', request('tools/call', { name: 'x' }), '2026-07-28'],
  ['tools/call, 2025 header', request('tools/call', { name: 'x' }), '2025-11-25'],
  ['tools/call, 2024-11-05 header', request('tools/call', { name: 'x' }), '2024-11-05'],
  ['tools/call, nonsense header', request('tools/call', { name: 'x' }), 'zzz'],
  ['tools/list without params, 2026 header', request('tools/list'), '2026-07-28'],
  ['a batch without claims, 2026 header', [request('tools/call', { name: 'x' })], '2026-07-28'],
  [
    'a batch with one claim',
    [request('tools/call', { name: 'x' }), request('tools/list', meta('2026-07-28'), 2)],
  ],
  ['an empty batch', []],
  ['a response, 2026 header', { jsonrpc: '2.0', id: 1, result: {} }, '2026-07-28'],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  [
    'a notification, 2026 header',
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    '2026-07-28',
  ],
  [
    'a claiming notification',
    {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, ...meta('2026-07-28') },
    },
  ],
  ['server/discover claiming 2026', request('server/discover', meta('2026-07-28'))],
  ['server/discover without a claim', request('server/discover', {})],
  ['neither request nor response', { jsonrpc: '2.0', id: 1 }],
  ['null', null],
  ['a string', 'hello'],
];

describe('ModernMcp.claims', () => {
  it.each(CASES)('agrees with the SDK’s isLegacyRequest: %s', async (_name, body, header) => {
    const make = () =>
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(header ? { 'mcp-protocol-version': header } : {}),
        },
        body: JSON.stringify(body),
      });
    expect(await ModernMcp.claims(make(), body)).toBe(!(await isLegacyRequest(make(), body)));
  });
});
