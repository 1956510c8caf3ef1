/**
 * `codemux serve` on SIGTERM: exits promptly even with upstreams still starting or deaf to
 * SIGTERM, leaves no process behind, lets in-flight executions finish within
 * shutdown_grace_ms and answers the rest with a clear error instead of a reset.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startGateway, untilFixture, untilInFlight } from './gateway.ts';
import { ROOT, SERVERS, until, writeConfig } from './helpers.ts';

const FAULTY = path.join(ROOT, 'test', 'fixtures', 'faulty-server.mjs');

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
    await until('three upstreams spawned', async () =>
      fs.readdirSync(pidDir).length >= 3 ? true : undefined,
    );
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
    await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'stats', {reset: true}).ok",
    });
    const short = run(1000);
    const long = run(30_000);
    await untilFixture(gateway, 'both calls at the upstream', (s) => s.peak >= 2);
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
  it('exits within shutdown_grace_ms + 2 s with an execution in flight and an upstream deaf to SIGTERM, answering it and leaving no child', async () => {
    const pidDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-pids-'));
    const graceMs = 1500;
    const gateway = await startGateway(
      writeConfig({
        shutdown_grace_ms: graceMs,
        mcpServers: [
          SERVERS.fixture,
          {
            name: 'deaf',
            command: process.execPath,
            args: [FAULTY, '--ignore-sigterm'],
            env: { PID_DIR: pidDir },
          },
        ],
      }),
    );
    // Both upstreams connected: the deaf one answers a call.
    const ready = await gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('deaf', 'echo', {}).ok && call_tool('fixture', 'echo', {}).ok",
    });
    expect(ready.json.value).toBe(true);
    const [deafPid] = fs.readdirSync(pidDir).map(Number);
    const long = gateway.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'sleep', {ms: 30000}).ok",
    });
    await untilInFlight(gateway);
    const started = performance.now();
    const stopped = gateway.stop();
    const cut = await long;
    expect(cut.status).toBe(500);
    expect(cut.json.error.message).toContain(`shutdown_grace_ms (${graceMs} ms)`);
    expect(await stopped).toBe(0);
    // The deaf child ignores stdin's close and SIGTERM: the old schedule (2 s after stdin, 2 s
    // after SIGTERM) took grace + 4 s at the least; the stopping gateway's SIGKILL comes 1.25 s
    // after the grace, so this holds with room for a slow machine.
    expect(performance.now() - started - graceMs).toBeLessThan(3500);
    const left = [deafPid!].filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  }, 60_000);
});
