/**
 * The official MCP conformance suite's server scenarios that apply to a gateway, against a real
 * `codemux serve`: each must pass with no failure and no warning. On Node 20 the suite runs
 * through scripts/conformance/register.mjs (a globSync shim; see docs/decisions.md).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { ROOT, SERVERS, writeConfig } from './helpers.ts';

const SUITE = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const SHIM = path.join(ROOT, 'scripts', 'conformance', 'register.mjs');
const SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
  'server-sse-polling',
];

function runScenario(url: string, scenario: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', SHIM, SUITE, 'server', '--url', url, '--scenario', scenario],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('MCP conformance (server scenarios)', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it.each(SCENARIOS)(
    '%s passes with no failure and no warning',
    async (scenario) => {
      const { code, out } = await runScenario(`${gateway.url}/mcp`, scenario);
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(out);
      expect(summary, out).not.toBeNull();
      const [, passed, total, failed, warnings] = summary!.map(Number);
      expect({ failed, warnings, code }, out).toEqual({ failed: 0, warnings: 0, code: 0 });
      expect(passed, out).toBe(total);
      expect(total, out).toBeGreaterThan(0);
    },
    70_000,
  );
});
