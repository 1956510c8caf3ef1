/**
 * Upstreams of both MCP generations behind one real `codemux serve`: a 2.x SDK server over
 * stdio and over Streamable HTTP (2026-07-28: server/discover, no initialize, no session) and
 * 1.x SDK servers over stdio and HTTP (2025-11-25). One program calls all four; each server's
 * negotiated version shows in the status; a 2026 server's tool changes still arrive; a 2026
 * server that is killed is reconnected and probed again.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { ROOT, runCli, SERVERS, settle, writeConfig } from './helpers.ts';
import { type RunningServer, startEverything, startListening } from './http-servers.ts';

const MODERN = path.join(ROOT, 'test', 'fixtures', 'modern-server.mjs');
const MODERN_HTTP = path.join(ROOT, 'test', 'fixtures', 'modern-http-server.mjs');

/** Starts modern-http-server.mjs on a free port and waits until it listens. */
function startModernHttp(): Promise<RunningServer> {
  return startListening([MODERN_HTTP], 'modern-http-server', '/mcp');
}

let gateway: RunningGateway;
let modernHttp: RunningServer;
let legacyHttp: RunningServer;

async function exec(code: string) {
  const { status, json } = await gateway.rest('POST', '/api/v1/code/exec', { code });
  expect(status, JSON.stringify(json)).toBe(200);
  expect(json.ok, JSON.stringify(json)).toBe(true);
  return json.value;
}

async function servers(): Promise<Array<Record<string, unknown>>> {
  const { json } = await gateway.rest('GET', '/api/v1/servers');
  return json.value.servers;
}

/** Polls `check` until it holds (a reconnect, a re-listing) or 15 s pass. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const value = await settle(read, check, 15_000, 200);
  if (!check(value)) throw new Error(`never held; last: ${JSON.stringify(value)}`);
  return value;
}

/** The JSON of `server`.`tool`'s first text block, or 'ERR code: message'. */
const callJson = (server: string, tool: string, args = '{}') =>
  exec(
    `const r = call_tool('${server}', '${tool}', ${args}); r.ok ? JSON.parse(r.result.content[0].text) : 'ERR ' + r.error.code + ': ' + r.error.message`,
  );

beforeAll(async () => {
  [modernHttp, legacyHttp] = await Promise.all([
    startModernHttp(),
    startEverything('streamableHttp'),
  ]);
  gateway = await startGateway(
    writeConfig({
      mcpServers: [
        { name: 'modern', command: process.execPath, args: [MODERN] },
        SERVERS.fixture,
        { name: 'modern-http', url: modernHttp.url },
        { name: 'legacy-http', url: legacyHttp.url },
      ],
      // A grown tool is called at once here (under tofu it would wait for an approval).
      tool_pinning: 'off',
    }),
  );
  await eventually(servers, (list) => list.every((s) => s.state === 'ready'));
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([modernHttp?.stop(), legacyHttp?.stop()]);
});

describe('upstreams of both generations', () => {
  it('shows each server’s negotiated protocol version, over REST and the CLI', async () => {
    const expected = {
      modern: '2026-07-28',
      fixture: '2025-11-25',
      'modern-http': '2026-07-28',
      'legacy-http': '2025-11-25',
    };
    const versions = (list: Array<Record<string, unknown>>) =>
      Object.fromEntries(list.map((s) => [s.name, s.protocol_version]));
    expect(versions(await servers())).toEqual(expected);
    const cli = await runCli(['servers', 'list', '--config', gateway.configFile, '-o', 'json']);
    expect(versions(cli.json.servers)).toEqual(expected);
  });

  it('calls tools on all four in one program', async () => {
    const value = await exec(`
      const text = (r) => r.ok ? r.result.content[0].text : 'ERR ' + r.error.code + ': ' + r.error.message;
      const modern = JSON.parse(text(call_tool('modern', 'echo', {message: 'a'})));
      const fixture = JSON.parse(text(call_tool('fixture', 'echo', {message: 'b'})));
      const modernHttp = JSON.parse(text(call_tool('modern-http', 'echo', {message: 'c'})));
      const legacyHttp = text(call_tool('legacy-http', 'echo', {message: 'd'}));
      const sum = call_tool('modern-http', 'add', {a: 2, b: 40});
      ({modern, fixture, modernHttp, legacyHttp, sum: sum.ok ? sum.result.structuredContent : sum.error})
    `);
    expect(value).toEqual({
      modern: { message: 'a', server: 'modern', era: 'modern', session: null },
      fixture: { message: 'b' },
      // A 2026-07-28 exchange over HTTP has no session.
      modernHttp: { message: 'c', server: 'modern-http', era: 'modern', session: null },
      legacyHttp: 'Echo: d',
      sum: { sum: 42 },
    });
  });

  it('reads a 2026 stdio server’s changed tool list before the next call is judged', async () => {
    const value = await exec(`
      const grown = JSON.parse(call_tool('modern', 'grow', {}).result.content[0].text).grown;
      const r = call_tool('modern', 'grown_' + grown, {});
      ({grown, answer: r.ok ? JSON.parse(r.result.content[0].text) : r.error})
    `);
    expect(value.answer).toEqual({ grown: value.grown });
  });

  it('sees a 2026 HTTP server’s tool change (its subscriptions/listen stream)', async () => {
    const grown = (await callJson('modern-http', 'grow')).grown as number;
    const tools = await eventually(
      async () => (await gateway.rest('GET', '/api/v1/servers/modern-http/tools')).json,
      (json) => JSON.stringify(json).includes(`grown_${grown}`),
    );
    expect(JSON.stringify(tools)).toContain(`grown_${grown}`);
    expect(await callJson('modern-http', `grown_${grown}`)).toEqual({ grown });
  });

  it('reconnects a killed 2026 stdio server and probes it again', async () => {
    const before = await callJson('modern', 'discovers');
    expect(before.discovers).toBe(1);
    process.kill(before.pid, 'SIGKILL');
    const after = await eventually(
      () => callJson('modern', 'discovers'),
      (value) => typeof value === 'object' && value.pid !== before.pid,
    );
    // A new process, asked server/discover again (not connected from the remembered result).
    expect(after.discovers).toBe(1);
    const status = (await servers()).find((s) => s.name === 'modern');
    expect(status).toMatchObject({ state: 'ready', protocol_version: '2026-07-28' });
  });
});
