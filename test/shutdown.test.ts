/**
 * `codemux serve` on SIGTERM: exits promptly even with upstreams still starting or deaf to
 * SIGTERM, leaves no process behind, lets in-flight executions finish within
 * shutdown_grace_ms and answers the rest with a clear error instead of a reset.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startGateway } from './gateway.ts';
import { ROOT, SERVERS, writeConfig } from './helpers.ts';

const FAULTY = path.join(ROOT, 'test', 'fixtures', 'faulty-server.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('shutdown', () => {
  it('exits promptly on SIGTERM with upstreams still starting or ignoring SIGTERM, leaving none running', async () => {
    const pidDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-pids-'));
    const faulty = (name: string, ...flags: string[]) => ({
      name,
      command: process.execPath,
      args: [FAULTY, ...flags],
      env: { PID_DIR: pidDir },
    });
    const gateway = await startGateway(
      writeConfig({
        mcpServers: [
          faulty('starting', '--slow-start'),
          faulty('deaf', '--ignore-sigterm'),
          faulty('starting-deaf', '--slow-start', '--ignore-sigterm'),
        ],
      }),
    );
    const deadline = Date.now() + 15_000;
    while (fs.readdirSync(pidDir).length < 3 && Date.now() < deadline) await sleep(50);
    const pids = fs.readdirSync(pidDir).map(Number);
    expect(pids).toHaveLength(3);
    const started = performance.now();
    expect(await gateway.stop()).toBe(0);
    // The connect timeout is 30 s; the old code waited for it.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(gateway.child.pid && alive(gateway.child.pid)).toBe(false);
    const left = pids.filter(alive);
    // Clean up even when the assertion fails (the old code left these orphaned).
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  }, 60_000);

  it('lets in-flight executions finish within shutdown_grace_ms and answers the rest with a clear error', async () => {
    const gateway = await startGateway(
      writeConfig({ shutdown_grace_ms: 3000, mcpServers: [SERVERS.fixture] }),
    );
    const run = (ms: number) =>
      gateway.rest('POST', '/api/v1/code/exec', {
        code: `call_tool('fixture', 'sleep', {ms: ${ms}}).ok`,
      });
    expect((await run(1)).json.value).toBe(true);
    const short = run(1000);
    const long = run(30_000);
    await sleep(300);
    const stopped = gateway.stop();
    expect(await short).toMatchObject({ status: 200, json: { ok: true, value: true } });
    const cut = await long;
    expect(cut.status).toBe(500);
    expect(cut.json.ok).toBe(false);
    expect(cut.json.error.code).toBe('EXECUTION_FAILED');
    expect(cut.json.error.message).toContain(
      'codemux is shutting down: the execution did not finish within shutdown_grace_ms (3000 ms)',
    );
    expect(await stopped).toBe(0);
  }, 60_000);
});
