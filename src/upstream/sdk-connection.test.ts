import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SERVER, ROOT } from '../../test/helpers.ts';
import { type RunningServer, startListening } from '../../test/http-servers.ts';
import { resolveConfig } from '../config/index.ts';
import { silentLogger } from '../util/logger.ts';
import { SdkConnection } from './sdk-connection.ts';

const fixture = (name: string) => path.join(ROOT, 'test', 'fixtures', name);
const open: SdkConnection[] = [];

function connection(args: string[], more: Record<string, unknown> = {}): SdkConnection {
  const [server] = resolveConfig(
    { mcpServers: [{ name: 'probed', command: process.execPath, args, ...more }] },
    { baseDir: process.cwd() },
  ).servers;
  const made = new SdkConnection(server!, silentLogger());
  open.push(made);
  return made;
}

/** The JSON of a call's first text block. */
async function called(c: SdkConnection, tool: string, args: Record<string, unknown> = {}) {
  const result = await c.callTool(tool, args, { timeoutMs: 10_000 });
  return JSON.parse((result.content[0] as { text: string }).text);
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.stop()));
});

describe('SdkConnection and the two MCP generations', () => {
  it('negotiates 2026-07-28 with a 2.x server and 2025-11-25 with a 1.x one', async () => {
    const modern = connection([fixture('modern-server.mjs')]);
    const legacy = connection([FIXTURE_SERVER]);
    await Promise.all([modern.start(), legacy.start()]);
    expect(modern.protocolVersion).toBe('2026-07-28');
    expect(legacy.protocolVersion).toBe('2025-11-25');
    expect(await called(modern, 'echo', { message: 'hi' })).toEqual({
      message: 'hi',
      server: 'modern',
      era: 'modern',
      session: null,
    });
  }, 30_000);

  it('connects again without a probe while it remembers the generation', async () => {
    const modern = connection([fixture('modern-server.mjs')]);
    await modern.start();
    expect((await called(modern, 'discovers')).discovers).toBe(1);
    await modern.stop();
    await modern.start();
    // A new process, connected from the remembered server/discover result.
    expect((await called(modern, 'discovers')).discovers).toBe(0);
    expect(modern.protocolVersion).toBe('2026-07-28');
  }, 30_000);

  it('returns the structuredContent of a 2026-07-28 tool with an output schema', async () => {
    const modern = connection([fixture('modern-server.mjs')]);
    await modern.start();
    const result = await modern.callTool('add', { a: 2, b: 3 }, {});
    expect(result.structuredContent).toEqual({ sum: 5 });
  }, 30_000);

  it('connects a stdio server that exits on the probe, without the probe', async () => {
    const strict = connection([fixture('strict-legacy-server.mjs')]);
    await strict.start();
    expect(strict.protocolVersion).toBe('2025-06-18');
    const result = await strict.callTool('hello', {}, {});
    expect(result.content).toEqual([{ type: 'text', text: 'hello from strict-legacy' }]);
  }, 30_000);

  it('forwards the log lines of a 2026-07-28 server during a call', async () => {
    const modern = connection([fixture('modern-server.mjs')]);
    const logs: unknown[] = [];
    modern.onLog = (line) => logs.push(line);
    await modern.start();
    await modern.callTool('shout', { message: 'hey' }, {});
    expect(logs).toEqual([{ level: 'info', data: 'shout: hey' }]);
  }, 30_000);

  it('ends a server silent on the probe and on initialize at the connect deadline, leaving no child', async () => {
    const pidDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-pids-'));
    const silent = connection([fixture('faulty-server.mjs'), '--slow-start'], {
      env: { PID_DIR: pidDir },
      connect_timeout_ms: 1500,
    });
    await expect(silent.start()).rejects.toThrow(/no handshake within 1500 ms/);
    const [pid] = fs.readdirSync(pidDir).map(Number);
    expect(pid).toBeGreaterThan(0);
    // The child is killed at the deadline; its exit is reaped a moment later.
    await vi.waitFor(() => expect(() => process.kill(pid!, 0)).toThrow(), { timeout: 10_000 });
  }, 30_000);

  it('stops at once while the server is being probed', async () => {
    const pidDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-pids-'));
    const silent = connection([fixture('faulty-server.mjs'), '--slow-start'], {
      env: { PID_DIR: pidDir },
    });
    const starting = silent.start();
    // The server is up (it wrote its pid) and silent: the probe is under way.
    await vi.waitFor(() => expect(fs.readdirSync(pidDir)).toHaveLength(1), { timeout: 10_000 });
    const before = performance.now();
    await silent.stop();
    // Not the connect timeout (30 s by default), which a stop that waited for the probe would
    // take; half of it leaves a loaded machine all the room it needs.
    expect(performance.now() - before).toBeLessThan(15_000);
    await expect(starting).rejects.toThrow();
  }, 30_000);
});

describe('SdkConnection and a 2026-07-28 server over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startListening([fixture('header-server.mjs')], 'header-server', '/mcp');
  });
  afterAll(async () => {
    await server?.stop();
  });

  function http(): SdkConnection {
    const [config] = resolveConfig(
      { mcpServers: [{ name: 'headers', url: server.url, protocol: 'http' }] },
      { baseDir: process.cwd() },
    ).servers;
    const made = new SdkConnection(config!, silentLogger());
    open.push(made);
    return made;
  }

  it('leaves out a tool with an invalid x-mcp-header (SEP-2243)', async () => {
    const c = http();
    await c.start();
    expect(c.protocolVersion).toBe('2026-07-28');
    expect(c.tools().map((t) => t.name)).toEqual(['headers', 'no_result_type']);
  }, 30_000);

  it('sends each declared parameter as an Mcp-Param header, none for null or absent ones', async () => {
    const c = http();
    await c.start();
    expect(
      await called(c, 'headers', { region: 'us-west1', priority: 7, verbose: null, query: 'q' }),
    ).toEqual({ 'mcp-param-region': 'us-west1', 'mcp-param-priority': '7' });
    expect(await called(c, 'headers', { region: ' padded', verbose: false, note: '世界' })).toEqual(
      {
        'mcp-param-region': `=?base64?${Buffer.from(' padded').toString('base64')}?=`,
        'mcp-param-verbose': 'false',
        'mcp-param-note': `=?base64?${Buffer.from('世界').toString('base64')}?=`,
      },
    );
  }, 30_000);

  it('reads a result without resultType as complete', async () => {
    const c = http();
    await c.start();
    const result = await c.callTool('no_result_type', {}, { timeoutMs: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'complete without saying so' }]);
  }, 30_000);
});
