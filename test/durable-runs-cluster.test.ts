/**
 * Runs survive their instance in a cluster (issue 36): two `codemux serve` on one PostgreSQL,
 * each with its own child of the mutable server (both count calls in one file). A run on alpha
 * made two calls and waits on an approval; alpha is killed (SIGKILL). Bravo takes the run once
 * alpha's lease lapsed and resumes it from its journal (the two calls are not sent again); a
 * waiter on bravo gets the final answer once the approval is given there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { settle, writeConfig } from './helpers.ts';
import { ANNOTATED_TOOLS, MUTABLE } from './policy-fixtures.ts';
import { type SharedPostgres, sharedPostgres } from './shared-postgres.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const API_KEY = 'durable-cluster-key';
let postgres: SharedPostgres;
let arrivals: string;
const gateways = new Map<string, RunningGateway>();

beforeAll(async () => {
  postgres = sharedPostgres();
  const databaseUrl = await postgres.database('durable_cluster');
  for (const id of ['alpha', 'bravo']) {
    const file = writeConfig({});
    arrivals ??= path.join(path.dirname(file), 'arrivals.txt');
    const toolsFile = path.join(path.dirname(file), 'tools.json');
    fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
    fs.writeFileSync(
      file,
      JSON.stringify({
        api_key: API_KEY,
        database_url: databaseUrl,
        instance_id: id,
        tool_pinning: 'off',
        code_execution_yield_ms: 1000,
        tool_policy: { approval_timeout_ms: 600_000 },
        mcpServers: [
          {
            name: 'mut',
            command: process.execPath,
            args: [MUTABLE],
            env: { MUTABLE_TOOLS_FILE: toolsFile, MUTABLE_ARRIVALS_FILE: arrivals },
          },
        ],
      }),
    );
    const g = await startGateway(file, { key: API_KEY });
    await waitUntilReady(g);
    gateways.set(id, g);
  }
}, 120_000);

afterAll(async () => {
  for (const g of gateways.values()) {
    if (g.child.exitCode === null && g.child.signalCode === null) await g.stop().catch(() => null);
  }
  await postgres?.drop();
});

const arrived = (): string[] =>
  fs
    .readFileSync(arrivals, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[0]!);

const standing = async (g: RunningGateway, id: string, waitMs = 0): Promise<Json> =>
  (await g.rest('GET', `/api/v1/executions/${id}?wait_ms=${waitMs}`)).json;

describe('a run whose instance is killed', () => {
  it('is resumed by another instance once the lease lapsed; a waiter there gets the answer', async () => {
    const alpha = gateways.get('alpha')!;
    const bravo = gateways.get('bravo')!;
    fs.writeFileSync(arrivals, '');
    const started = await alpha.rest('POST', '/api/v1/code/exec', {
      code: `call_tool('mut', 'read', {path: '/a'}); call_tool('mut', 'read', {path: '/b'});
const r = call_tool('mut', 'wipe', {path: '/c'}); r.ok ? 'wiped' : r.error.code`,
    });
    const id = started.json.execution_id;
    const held = await settle(
      () => standing(alpha, id),
      (s) => (s.waiting_for ?? []).length > 0,
    );
    const approvalId = held.waiting_for[0].approval_id;
    const exited = new Promise((resolve) => alpha.child.once('exit', resolve));
    alpha.child.kill('SIGKILL');
    await exited;
    // Bravo takes the run once alpha's lease lapsed (15 s, then a claim every 2 s).
    const resumed = await settle(
      async () =>
        ((await bravo.rest('GET', '/api/v1/executions')).json.items as Json[]).find(
          (s) => s.execution_id === id,
        ),
      (s) => s?.instance_id === 'bravo' && s.waiting_for.length > 0,
      60_000,
    );
    expect(resumed.waiting_for).toEqual([{ approval_id: approvalId, server: 'mut', tool: 'wipe' }]);
    const waiting = standing(bravo, id, 60_000);
    const approved = await bravo.rest('POST', `/api/v1/approvals/${approvalId}/approve`, {});
    expect(approved.status).toBe(200);
    expect(await waiting).toMatchObject({ ok: true, value: 'wiped', activity_id: id });
    expect(arrived()).toEqual(['read', 'read', 'wipe']);
  }, 120_000);
});
