import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVERS, settle } from '../../../test/helpers.ts';
import { resolveConfig } from '../../config/index.ts';
import { type ExecutionRunStore, memoryExecutionRunStore } from '../../store/index.ts';
import { silentLogger } from '../../util/logger.ts';
import { createRuntime, type Runtime } from '../index.ts';
import type { Caller, ExecutionResult } from '../types.ts';
import { continueRun, type RunCallAnswer, startCodeExecution, startExecute } from './run-calls.ts';

// Two instances of one cluster in this process, on one store without notices: the waiters and
// the owner poll, as on SQLite (test/runs-cluster.test.ts covers PostgreSQL and its notices).
let store: ExecutionRunStore;
let alpha: Runtime;
let bravo: Runtime;
const AGENT: Caller = { kind: 'agent', name: 'runner', servers: ['fixture'] };
const OTHER: Caller = { kind: 'agent', name: 'other', servers: ['fixture'] };
const ADMIN: Caller = { kind: 'admin' };

function instance(id: string): Runtime {
  const config = resolveConfig(
    {
      instance_id: id,
      code_execution_pool_size: 1,
      code_execution_yield_ms: 1000,
      tool_policy: { rules: [{ server: 'fixture', tool: 'echo', action: 'ask' }] },
      mcpServers: [SERVERS.fixture],
    },
    { baseDir: process.cwd() },
  );
  return createRuntime(config, silentLogger(), { warmWorkers: 1, executionRunStore: store });
}

beforeAll(async () => {
  store = memoryExecutionRunStore();
  alpha = instance('alpha');
  bravo = instance('bravo');
  await Promise.all([alpha.start(), bravo.start()]);
});

afterAll(async () => {
  await Promise.all([alpha?.stop(), bravo?.stop()]);
});

/** A program held on an approval of fixture.echo, logging first. */
const HELD = `console.log('before'); const r = call_tool('fixture', 'echo', {message: 'x'}); r.ok ? 'sent' : r.error.code`;

const startOn = (runtime: Runtime, code: string) =>
  startCodeExecution(runtime, { code }, AGENT, {});
const resumeOn = (
  runtime: Runtime,
  args: Record<string, unknown>,
  caller: Caller = AGENT,
  progress?: (line: string) => void,
) => continueRun(runtime, args, 'code_execution', caller, progress ? { progress } : {});

function ended(answer: RunCallAnswer): ExecutionResult {
  if (answer.state !== 'ended' || !('result' in answer.end))
    throw new Error(`expected an end, got ${JSON.stringify(answer)}`);
  return answer.end.result as ExecutionResult;
}

function running(answer: RunCallAnswer) {
  if (answer.state !== 'running') throw new Error(`expected running, got ${answer.state}`);
  return answer.snapshot;
}

/**
 * Starts HELD on `runtime` and waits, on its owner, until it waits on its approval: the yield
 * comes after code_execution_yield_ms whatever the run reached (a loaded machine yields first).
 */
async function heldOn(runtime: Runtime) {
  const first = running(await startOn(runtime, HELD));
  return settle(
    async () => running(await resumeOn(runtime, { execution_id: first.execution_id, wait_ms: 0 })),
    (snapshot) => snapshot.waiting_for.length > 0,
  );
}

/** Calls the fixture of `runtime` received so far. */
async function fixtureCalls(runtime: Runtime): Promise<number> {
  let started = await startCodeExecution(
    runtime,
    { code: `JSON.parse(call_tool('fixture', 'stats', {}).result.content[0].text).calls` },
    ADMIN,
    {},
  );
  // A loaded machine may pass the 1 s yield first: the run is then waited on.
  if (started.state === 'running')
    started = await resumeOn(
      runtime,
      { execution_id: started.snapshot.execution_id, wait_ms: 60_000 },
      ADMIN,
    );
  const answer = ended(started);
  return (answer.envelope as { value: number }).value;
}

describe('runs across the instances of a cluster (one store)', () => {
  it('writes nothing for a run that never yields', async () => {
    expect(ended(await startOn(alpha, '1 + 1')).envelope).toEqual({ ok: true, value: 2 });
    expect(await store.list({ now: new Date(0).toISOString(), limit: 10 })).toEqual([]);
  });

  it('answers a wait on the other instance: where the run stands, then its final answer', async () => {
    const first = await heldOn(alpha);
    expect(first.instance_id).toBe('alpha');
    const id = first.execution_id;
    const lines: string[] = [];
    // The owner writes where the run stands at most once a second: bravo sees it after that.
    const again = await settle(
      async () => running(await resumeOn(bravo, { execution_id: id, wait_ms: 0 })),
      (snapshot) => snapshot.waiting_for.length > 0,
    );
    expect(again).toMatchObject({
      execution_id: id,
      instance_id: 'alpha',
      status: 'running',
      logs: ['before'],
      waiting_for: first.waiting_for,
    });
    const waited = resumeOn(bravo, { execution_id: id, wait_ms: 20_000 }, AGENT, (line) =>
      lines.push(line),
    );
    await alpha.approvals.decide(first.waiting_for[0]!.approval_id, 'approve', 'admin');
    const final = ended(await waited);
    expect(final.envelope).toMatchObject({ ok: true, value: 'sent' });
    // The answer the owner gives, byte for byte; reading it does not consume it.
    const here = ended(await resumeOn(alpha, { execution_id: id }));
    expect(JSON.stringify(final)).toBe(JSON.stringify(here));
    expect(ended(await resumeOn(bravo, { execution_id: id }))).toEqual(final);
    expect(lines[0]).toContain(`waiting for approval ${first.waiting_for[0]!.approval_id}`);
  });

  it('cancels on the other instance: the owner stops the run, nothing is sent', async () => {
    const before = await fixtureCalls(alpha);
    const first = await heldOn(alpha);
    const id = first.execution_id;
    const final = ended(await resumeOn(bravo, { execution_id: id, cancel: true }));
    expect(final.envelope).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by token:runner' },
    });
    const approval = await settle(
      () => alpha.approvals.get(first.waiting_for[0]!.approval_id),
      (a) => a?.status === 'expired',
    );
    expect(approval?.status).toBe('expired');
    expect(await fixtureCalls(alpha)).toBe(before);
    // Cancelling again: it already ended, its answer kept.
    const twice = await resumeOn(bravo, { execution_id: id, cancel: true });
    expect(twice).toMatchObject({ state: 'refused', error: { code: 'INVALID_REQUEST' } });
    expect(ended(await resumeOn(bravo, { execution_id: id }))).toEqual(final);
  });

  it('shows a run to its caller and the admin only, and lists it on every instance', async () => {
    const first = await heldOn(alpha);
    const id = first.execution_id;
    for (const [args, caller] of [
      [{ execution_id: id }, OTHER],
      [{ execution_id: id, cancel: true }, OTHER],
      [{ execution_id: 'nope', wait_ms: 0 }, AGENT],
    ] as const) {
      expect(await resumeOn(bravo, args, caller)).toMatchObject({
        state: 'refused',
        error: { code: 'EXECUTION_NOT_FOUND' },
      });
    }
    expect((await bravo.runs.list(AGENT, 'running')).map((s) => s.execution_id)).toContain(id);
    expect((await bravo.runs.list(ADMIN, 'running')).map((s) => s.execution_id)).toContain(id);
    expect(await bravo.runs.list(OTHER)).toEqual([]);
    const final = ended(await resumeOn(bravo, { execution_id: id, cancel: true }, ADMIN));
    expect(final.envelope).toMatchObject({ error: { message: 'cancelled by admin' } });
    const done = await bravo.runs.list(AGENT, 'done');
    expect(done.find((s) => s.execution_id === id)).toMatchObject({ status: 'done' });
  });

  it('answers execute on the other instance in its own dialect', async () => {
    const answer = await startExecute(
      alpha,
      { code: `console.log('hi'); const r = await tools.fixture.echo({message: 'x'}); return r;` },
      AGENT,
      {},
    );
    const first = running(answer);
    // The first type check may take longer than the yield: the approval may come after it.
    const [held] = await settle(
      async () => (await alpha.approvals.list('pending')).filter((a) => a.tool === 'echo'),
      (list) => list.length > 0,
    );
    await alpha.approvals.decide(held!.id, 'deny', 'admin');
    const there = await continueRun(
      bravo,
      { execution_id: first.execution_id, timeout_ms: 20_000 },
      'execute',
      AGENT,
      {},
    );
    const here = await continueRun(
      alpha,
      { execution_id: first.execution_id },
      'execute',
      AGENT,
      {},
    );
    expect(there).toMatchObject({ state: 'ended', kind: 'execute' });
    expect(JSON.stringify(there)).toBe(JSON.stringify(here));
  });
});
