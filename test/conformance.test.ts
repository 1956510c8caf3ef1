/**
 * The official MCP conformance suite's server scenarios that apply to a gateway, against a real
 * `codemux serve`: 0.1.16's (2025-11-25) must pass with no failure and no warning; 0.2.0's
 * 2026-07-28 scenarios (`mcp-conformance-2026`, an npm alias) must pass every check but the
 * few that need the suite's own diagnostic tools or prompts and resources, which a gateway
 * does not have (named below, and in docs/decisions.md). On Node 20 both run through
 * scripts/conformance/register.mjs (a globSync shim; see docs/decisions.md).
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
const SUITE_2026 = path.join(ROOT, 'node_modules', 'mcp-conformance-2026', 'dist', 'index.js');
const SHIM = path.join(ROOT, 'scripts', 'conformance', 'register.mjs');
/**
 * The 2026-07-28 scenarios that apply to a gateway, with the checks that cannot: they call the
 * suite's diagnostic tools (test_missing_capability, test_streaming_elicitation,
 * test_logging_tool, a tool that changes the list, tools with x-mcp-header parameters), or
 * list prompts and resources, which codemux does not serve.
 */
const SCENARIOS_2026: Record<string, readonly string[]> = {
  'server-stateless': [
    'sep-2575-server-rejects-undeclared-capability',
    'sep-2575-missing-capability-http-400',
    'sep-2575-http-server-no-independent-requests-on-stream',
    'sep-2575-server-no-log-without-loglevel',
    'sep-2575-server-sends-tools-list-changed-on-subscription',
  ],
  'tools-list': [],
  'dns-rebinding-protection': [],
  caching: [
    'sep-2549-prompts-list-caching-hints',
    'sep-2549-resources-list-caching-hints',
    'sep-2549-resources-templates-list-caching-hints',
  ],
  'http-header-validation': [],
  'server-sse-multiple-streams': [],
};
const SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
  'server-sse-polling',
];

function runScenario(
  url: string,
  scenario: string,
  suite = SUITE,
  extra: string[] = [],
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', SHIM, suite, 'server', '--url', url, '--scenario', scenario, ...extra],
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

/** Each check's id and status in a scenario's output (`[id   ] STATUS description`). */
function checksOf(out: string): Map<string, string> {
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const checks = new Map<string, string>();
  for (const match of plain.matchAll(/\[([a-z0-9-]+)\s*\] (SUCCESS|FAILURE|WARNING|INFO|SKIPPED)/g))
    checks.set(match[1]!, match[2]!);
  return checks;
}

describe('MCP conformance 2026-07-28 (server scenarios, 0.2.0)', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it.each(Object.entries(SCENARIOS_2026))(
    '%s passes every check that applies to a gateway',
    async (scenario, notApplicable) => {
      const { out } = await runScenario(`${gateway.url}/mcp`, scenario, SUITE_2026, [
        '--spec-version',
        '2026-07-28',
      ]);
      const checks = checksOf(out);
      expect(checks.size, out).toBeGreaterThan(0);
      // SKIPPED: the suite itself found the check does not apply (a capability not declared).
      const wrong = [...checks].filter(
        ([id, status]) =>
          !notApplicable.includes(id) && !['SUCCESS', 'INFO', 'SKIPPED'].includes(status),
      );
      expect(wrong, out).toEqual([]);
    },
    70_000,
  );
});
