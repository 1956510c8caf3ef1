/**
 * Keyless /mcp only from this machine's own clients, in process (`app.request()`): the Host
 * must be a loopback name with the listen port, the Origin a loopback one; a key passes from
 * anywhere. The legacy SSE stream needs the socket: see http-trust.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessGateway, startInProcess } from './in-process.ts';

describe('the open loopback routes', () => {
  let gateway: InProcessGateway;
  beforeAll(async () => {
    gateway = await startInProcess({ mcpServers: [] });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  const post = async (path: string, headers: Record<string, string>) => {
    const response = await gateway.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{}',
    });
    await response.body?.cancel();
    return response.status;
  };
  // [Host (PORT = the listen port), Origin, accepted]
  const cases: Array<[string, string | undefined, boolean]> = [
    ['127.0.0.1:PORT', undefined, true],
    ['localhost:PORT', undefined, true],
    ['127.0.0.1:PORT', 'http://localhost:3000', true],
    ['127.0.0.1:PORT', 'http://127.0.0.1:PORT', true],
    ['127.0.0.1:PORT', 'http://[::1]:PORT', true],
    ['127.8.9.10:PORT', undefined, true],
    ['evil.example:PORT', undefined, false],
    ['127.0.0.1.evil.example:PORT', undefined, false],
    ['127.0.0.1.nip.io:PORT', undefined, false],
    ['127.0.0.1:1', undefined, false],
    ['127.0.0.1', undefined, false],
    ['127.0.0.1:PORT', 'null', false],
    ['127.0.0.1:PORT', 'https://evil.example', false],
    ['127.0.0.1:PORT', 'http://127.0.0.1.evil.example', false],
    ['127.0.0.1:PORT', 'http://127.0.0.1.nip.io:PORT', false],
  ];
  for (const path of ['/mcp', '/mcp/codemode']) {
    it.each(cases)(`${path}: Host %s, Origin %s -> accepted %s`, async (host, origin, ok) => {
      const port = String(gateway.port);
      const headers: Record<string, string> = { host: host.replace('PORT', port) };
      if (origin) headers.origin = origin.replace('PORT', port);
      // Accepted: the MCP layer answers (400: no session); refused: 403 before it.
      expect(await post(path, headers)).toBe(ok ? 400 : 403);
    });
  }

  it('lets a key through from any Host', async () => {
    const headers = { host: 'evil.example', authorization: `Bearer ${gateway.key}` };
    expect(await post('/mcp', headers)).toBe(400);
  });
});
