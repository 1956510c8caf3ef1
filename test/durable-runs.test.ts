/**
 * Runs survive a restart (issue 36): a gateway killed with SIGKILL while a run is alive comes
 * back on the same config and data; the run is resumed from its journal (the calls it made are
 * answered from the journal and never sent again), and the client waiting by execution_id gets
 * the final answer. Calls are counted at the upstream (its arrivals file).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { settle } from './helpers.ts';
import { countedUpstreamConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const gateways: RunningGateway[] = [];

afterAll(async () => {
  // The crashed ones are gone already.
  for (const g of gateways) {
    if (g.child.exitCode === null && g.child.signalCode === null) await g.stop().catch(() => null);
  }
});

async function start(configFile: string, port?: number): Promise<RunningGateway> {
  const g = await startGateway(configFile, port ? { port } : {});
  gateways.push(g);
  await waitUntilReady(g);
  return g;
}

/** Kills the gateway's process at once (no drain, no shutdown: a crash). */
async function crash(g: RunningGateway): Promise<void> {
  const exited = new Promise((resolve) => g.child.once('exit', resolve));
  g.child.kill('SIGKILL');
  await exited;
}

/** Where run `id` stands on `g`, read with the admin key (REST). */
const standing = async (g: RunningGateway, id: string, waitMs = 0): Promise<Json> =>
  (await g.rest('GET', `/api/v1/executions/${id}?wait_ms=${waitMs}`)).json;

const portOf = (g: RunningGateway) => Number(new URL(g.url).port);

describe('a run alive when its gateway is killed', () => {
  it('a held call survives: resumed, approved, sent once; the calls before it are not sent again', async () => {
    // A configured instance id: the restarted gateway takes its own runs back at once.
    const upstream = countedUpstreamConfig({
      instance_id: 'durable-a',
      code_execution_yield_ms: 1000,
      tool_policy: { approval_timeout_ms: 600_000 },
    });
    const g1 = await start(upstream.configFile);
    const started = await g1.rest('POST', '/api/v1/code/exec', {
      code: `for (const p of ['/a', '/b', '/c']) call_tool('mut', 'read', {path: p});
const r = call_tool('mut', 'wipe', {path: '/d'});
r.ok ? 'wiped' : r.error.code`,
    });
    expect(started.json).toMatchObject({ ok: true, status: 'running' });
    const id = started.json.execution_id;
    const held = await settle(
      () => standing(g1, id),
      (s) => (s.waiting_for ?? []).length > 0,
    );
    const approvalId = held.waiting_for[0].approval_id;
    expect(upstream.arrived()).toEqual(['read', 'read', 'read']);
    await crash(g1);

    const g2 = await start(upstream.configFile, portOf(g1));
    const again = await settle(
      () => standing(g2, id),
      (s) => (s.waiting_for ?? []).length > 0,
      30_000,
    );
    expect(again.waiting_for).toEqual([{ approval_id: approvalId, server: 'mut', tool: 'wipe' }]);
    const approved = await g2.rest('POST', `/api/v1/approvals/${approvalId}/approve`, {});
    expect(approved.status).toBe(200);
    const final = await settle(
      () => standing(g2, id, 10_000),
      (s) => s.status !== 'running',
      30_000,
    );
    expect(final).toMatchObject({ ok: true, value: 'wiped', activity_id: id });
    expect(upstream.arrived()).toEqual(['read', 'read', 'read', 'wipe']);
    const record = await settle(
      async () => (await g2.rest('GET', `/api/v1/activity/${id}`)).json,
      (r) => r?.status === 'success',
    );
    expect(record.resumed).toBe(1);
  }, 120_000);

  it('killed between its 3rd and 4th call: after the lease lapses it resumes, calls 1-3 are not sent again', async () => {
    const upstream = countedUpstreamConfig({
      code_execution_yield_ms: 1000,
      tool_policy: { approval_timeout_ms: 600_000 },
    });
    const g1 = await start(upstream.configFile);
    const started = await g1.rest('POST', '/api/v1/code/exec', {
      // The paths carry a random number and the time: a resume that read others would diverge.
      code: `const got = [];
const r = Math.random();
const t = new Date().toISOString();
for (const p of ['/a', '/b', '/c']) got.push(call_tool('mut', 'read', {path: p + r + t}).ok);
let spins = 0;
const until = Date.now() + 3000;
while (Date.now() < until) spins++;
got.push(call_tool('mut', 'write', {path: '/e'}).ok);
got`,
    });
    const id = started.json.execution_id;
    expect(id).toEqual(expect.any(String));
    await settle(
      async () => upstream.arrived(),
      (calls) => calls.length === 3,
    );
    // Between the 3rd and the 4th call: the program spins.
    expect(upstream.arrived()).toEqual(['read', 'read', 'read']);
    await crash(g1);

    const g2 = await start(upstream.configFile, portOf(g1));
    const final = await settle(
      () => standing(g2, id, 10_000),
      (s) => s.status !== 'running' && s.ok !== undefined,
      60_000,
    );
    expect(final, JSON.stringify(final)).toMatchObject({
      ok: true,
      value: [true, true, true, true],
    });
    expect(upstream.arrived()).toEqual(['read', 'read', 'read', 'write']);
  }, 120_000);

  it('with code_execution_durable false the run is not journaled: a waiter learns it was INTERRUPTED', async () => {
    const upstream = countedUpstreamConfig({
      instance_id: 'durable-off',
      code_execution_durable: false,
      code_execution_yield_ms: 1000,
      tool_policy: { approval_timeout_ms: 600_000 },
    });
    const g1 = await start(upstream.configFile);
    const started = await g1.rest('POST', '/api/v1/code/exec', {
      code: `call_tool('mut', 'read', {path: '/a'}); call_tool('mut', 'wipe', {path: '/b'}); 'done'`,
    });
    const id = started.json.execution_id;
    await settle(
      () => standing(g1, id),
      (s) => (s.waiting_for ?? []).length > 0,
    );
    await crash(g1);
    const g2 = await start(upstream.configFile, portOf(g1));
    const final = await standing(g2, id);
    expect(final).toMatchObject({ ok: false, error: { code: 'INTERRUPTED' } });
    expect(final.error.message).toContain('code_execution_durable is false');
    expect(upstream.arrived()).toEqual(['read']);
  }, 120_000);

  it('stopped with SIGTERM past the drain: resumed too, nothing recorded as failed', async () => {
    const upstream = countedUpstreamConfig({
      instance_id: 'durable-term',
      shutdown_grace_ms: 200,
      code_execution_yield_ms: 1000,
      tool_policy: { approval_timeout_ms: 600_000 },
    });
    const g1 = await start(upstream.configFile);
    const started = await g1.rest('POST', '/api/v1/code/exec', {
      code: `call_tool('mut', 'read', {path: '/a'}); const r = call_tool('mut', 'wipe', {path: '/b'}); r.ok ? 'wiped' : r.error.code`,
    });
    const id = started.json.execution_id;
    const held = await settle(
      () => standing(g1, id),
      (s) => (s.waiting_for ?? []).length > 0,
    );
    await g1.stop();
    const g2 = await start(upstream.configFile, portOf(g1));
    await settle(
      () => standing(g2, id),
      (s) => (s.waiting_for ?? []).length > 0,
      30_000,
    );
    await g2.rest('POST', `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`, {});
    const final = await settle(
      () => standing(g2, id, 10_000),
      (s) => s.status !== 'running',
      30_000,
    );
    expect(final).toMatchObject({ ok: true, value: 'wiped' });
    expect(upstream.arrived()).toEqual(['read', 'wipe']);
  }, 120_000);

  it('a call in flight at the kill is never sent again: its outcome is unknown; catalog reads replay', async () => {
    const upstream = countedUpstreamConfig({
      instance_id: 'durable-inflight',
      code_execution_yield_ms: 1000,
    });
    const g1 = await start(upstream.configFile);
    const started = await g1.rest('POST', '/api/v1/code/exec', {
      code: `const hits = await catalog.tools.search({query: 'wipe'});
const r = call_tool('mut', 'read', {path: '/slow' + JSON.stringify(hits).length, delay_ms: 60000});
r.ok ? 'answered' : r.error`,
    });
    const id = started.json.execution_id;
    expect(id).toEqual(expect.any(String));
    await settle(
      async () => upstream.arrived(),
      (calls) => calls.length === 1,
    );
    await crash(g1);
    const g2 = await start(upstream.configFile, portOf(g1));
    const final = await settle(
      () => standing(g2, id, 10_000),
      (s) => s.status !== 'running',
      30_000,
    );
    expect(final).toMatchObject({
      ok: true,
      value: {
        code: 'UPSTREAM_ERROR',
        message: 'outcome unknown: the gateway stopped while mut.read was in flight',
      },
    });
    expect(upstream.arrived()).toEqual(['read']);
  }, 120_000);

  it('a stored script edited before the resume: REPLAY_DIVERGED, nothing more sent', async () => {
    const upstream = countedUpstreamConfig({
      instance_id: 'durable-edited',
      code_execution_yield_ms: 1000,
      tool_policy: { approval_timeout_ms: 600_000 },
    });
    const scripts = path.join(path.dirname(upstream.configFile), 'scripts');
    fs.mkdirSync(scripts, { recursive: true });
    const script = path.join(scripts, 'hold.js');
    fs.writeFileSync(
      script,
      `call_tool('mut', 'read', {path: '/a'}); call_tool('mut', 'wipe', {path: '/b'}); 'done'`,
    );
    const g1 = await start(upstream.configFile);
    const started = await g1.rest('POST', '/api/v1/code/exec', { script: 'hold' });
    const id = started.json.execution_id;
    await settle(
      () => standing(g1, id),
      (s) => (s.waiting_for ?? []).length > 0,
    );
    await crash(g1);
    fs.writeFileSync(script, `call_tool('mut', 'write', {path: '/c'}); 'edited'`);
    const g2 = await start(upstream.configFile, portOf(g1));
    const final = await settle(
      () => standing(g2, id, 10_000),
      (s) => s.status !== 'running',
      30_000,
    );
    expect(final).toMatchObject({ ok: false, error: { code: 'REPLAY_DIVERGED' } });
    expect(final.error.message).toContain('edited meanwhile');
    expect(upstream.arrived()).toEqual(['read']);
  }, 120_000);
});
