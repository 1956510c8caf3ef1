import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SERVERS, settle } from '../../../test/helpers.ts';
import { resolveConfig } from '../../config/index.ts';
import { silentLogger } from '../../util/logger.ts';
import { createRuntime, type Runtime } from '../index.ts';
import type { Caller, ExecutionResult } from '../types.ts';
import { continueRun, type RunCallAnswer, startCodeExecution, startExecute } from './run-calls.ts';

let runtime: Runtime;
const AGENT: Caller = { kind: 'agent', name: 'runner', servers: ['fixture'] };
const OTHER: Caller = { kind: 'agent', name: 'other', servers: ['fixture'] };

beforeAll(async () => {
  const config = resolveConfig(
    {
      code_execution_pool_size: 2,
      code_execution_yield_ms: 1000,
      code_execution_max_running: 3,
      tool_policy: { rules: [{ server: 'fixture', tool: 'fail', action: 'ask' }] },
      mcpServers: [SERVERS.fixture],
    },
    { baseDir: process.cwd() },
  );
  runtime = createRuntime(config, silentLogger(), { warmWorkers: 1 });
  await runtime.start();
});

afterAll(async () => {
  await runtime.stop();
});

// A test that failed midway leaves no run alive to count against the next one's bound.
afterEach(async () => {
  for (const run of runtime.runs.liveRuns()) run.cancel('the test ended');
  await settle(
    async () => runtime.runs.running,
    (n) => n === 0,
  );
});

const start = (code: string, caller: Caller = AGENT, signal?: AbortSignal) =>
  startCodeExecution(runtime, { code, options: { timeout_ms: 600_000 } }, caller, { signal });
const resume = (args: Record<string, unknown>, caller: Caller = AGENT) =>
  continueRun(runtime, args, 'code_execution', caller, {});

function ended(answer: RunCallAnswer): ExecutionResult {
  if (answer.state !== 'ended' || !('result' in answer.end))
    throw new Error(`expected an end, got ${JSON.stringify(answer)}`);
  return answer.end.result as ExecutionResult;
}

/**
 * The run's final answer: a run that should end at once may still pass the 1 s yield on a
 * loaded machine, and then is waited on (the answer is the same either way).
 */
async function finalOf(answer: RunCallAnswer): Promise<ExecutionResult> {
  if (answer.state !== 'running') return ended(answer);
  return ended(await resume({ execution_id: answer.snapshot.execution_id, wait_ms: 60_000 }));
}

function running(answer: RunCallAnswer) {
  if (answer.state !== 'running') throw new Error(`expected running, got ${answer.state}`);
  return answer.snapshot;
}

/** A program that waits on an approval of fixture.fail, logging first. */
const HELD = `console.log('before'); const r = call_tool('fixture', 'fail', {message: 'x'}); r.ok ? 'sent' : r.error.code`;

/**
 * Starts HELD and waits until its run waits on its approval: the yield comes after
 * code_execution_yield_ms whatever the run reached, so a loaded machine may yield earlier.
 */
async function heldRun(caller: Caller = AGENT, signal?: AbortSignal) {
  const first = running(await start(HELD, caller, signal));
  return settle(
    async () => running(await resume({ execution_id: first.execution_id, wait_ms: 0 }, caller)),
    (snapshot) => snapshot.waiting_for.length > 0,
  );
}

describe('runs that outlive their request', () => {
  it('answers a fast run at once, as before', async () => {
    expect((await finalOf(await start('1 + 1'))).envelope).toEqual({ ok: true, value: 2 });
  });

  it('yields a held run naming its approval, and a wait returns the final answer', async () => {
    const first = await heldRun();
    expect(first.logs).toEqual(['before']);
    expect(first.waiting_for).toEqual([
      { approval_id: expect.any(String), server: 'fixture', tool: 'fail' },
    ]);
    const approvalId = first.waiting_for[0]!.approval_id;
    // A wait shorter than the run answers running again.
    const again = running(await resume({ execution_id: first.execution_id, wait_ms: 0 }));
    expect(again.waiting_for[0]!.approval_id).toBe(approvalId);
    await runtime.approvals.decide(approvalId, 'deny', 'admin');
    const final = ended(await resume({ execution_id: first.execution_id, wait_ms: 5000 }));
    expect(final.envelope).toMatchObject({ ok: true, value: 'APPROVAL_DENIED' });
    // Reading it does not consume it.
    const read = ended(await resume({ execution_id: first.execution_id }));
    expect(read).toEqual(final);
  });

  it('cancels a run: CANCELLED naming who, its approval expired, nothing sent', async () => {
    const first = await heldRun();
    const approvalId = first.waiting_for[0]!.approval_id;
    const final = ended(await resume({ execution_id: first.execution_id, cancel: true }));
    expect(final.envelope).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by token:runner' },
    });
    const approval = await settle(
      () => runtime.approvals.get(approvalId),
      (a) => a?.status === 'expired',
    );
    expect(approval?.status).toBe('expired');
    // Cancelling again: the run already ended; its answer is kept.
    const twice = await resume({ execution_id: first.execution_id, cancel: true });
    expect(twice).toMatchObject({ state: 'refused', error: { code: 'INVALID_REQUEST' } });
    expect((twice as { error: { message: string } }).error.message).toContain('already ended');
    expect(ended(await resume({ execution_id: first.execution_id }))).toEqual(final);
  });

  it('stops a busy program at once when cancelled', async () => {
    const first = running(await start('while (true) {}'));
    const final = ended(
      await resume({ execution_id: first.execution_id, cancel: true }, ADMIN_CALLER),
    );
    expect(final.envelope).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by admin' },
    });
  });

  it('refuses another token, unknown ids and bad continues, naming the field', async () => {
    const first = await heldRun();
    const id = first.execution_id;
    expect(await resume({ execution_id: id }, OTHER)).toMatchObject({
      state: 'refused',
      error: { code: 'EXECUTION_NOT_FOUND' },
    });
    expect(await resume({ execution_id: 'nope' })).toMatchObject({
      state: 'refused',
      error: { code: 'EXECUTION_NOT_FOUND' },
    });
    const mixed = await resume({ execution_id: id, code: '1' });
    expect(mixed).toMatchObject({ state: 'refused', error: { code: 'INVALID_REQUEST' } });
    expect((mixed as { error: { message: string } }).error.message).toContain('without code');
    const wait = await resume({ execution_id: id, wait_ms: 600_001 });
    expect((wait as { error: { message: string } }).error.message).toContain(
      'wait_ms must be an integer from 0 to 600000',
    );
    // The run is untouched by the refusals: the admin may still cancel it.
    const final = ended(await resume({ execution_id: id, cancel: true }, ADMIN_CALLER));
    expect(final.envelope).toMatchObject({ error: { code: 'CANCELLED' } });
  });

  it('cancels a run whose request is cancelled before it yields; not after', async () => {
    // Before: on a runtime that yields only after 10 minutes, so the abort surely comes first.
    const patient = createRuntime(
      resolveConfig(
        {
          code_execution_pool_size: 1,
          code_execution_yield_ms: 600_000,
          tool_policy: { rules: [{ server: 'fixture', tool: 'fail', action: 'ask' }] },
          mcpServers: [SERVERS.fixture],
        },
        { baseDir: process.cwd() },
      ),
      silentLogger(),
      { warmWorkers: 1 },
    );
    await patient.start();
    try {
      const request = new AbortController();
      const started = startCodeExecution(
        patient,
        { code: HELD, options: { timeout_ms: 600_000 } },
        AGENT,
        { signal: request.signal },
      );
      const waiting = () => patient.approvals.list('pending');
      await settle(waiting, (list) => list.length > 0);
      request.abort('the client gave up');
      const final = ended(await started);
      expect(final.envelope).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
      expect(await settle(waiting, (list) => list.length === 0)).toEqual([]);
    } finally {
      await patient.stop();
    }

    const later = new AbortController();
    const first = await heldRun(AGENT, later.signal);
    later.abort('the client gave up');
    const still = running(await resume({ execution_id: first.execution_id, wait_ms: 0 }));
    expect(still.waiting_for).toHaveLength(1);
    await resume({ execution_id: first.execution_id, cancel: true });
  });

  it('bounds runs alive at once (code_execution_max_running), yielded ones included', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(running(await start(HELD)).execution_id);
    const over = ended(await start('1'));
    expect(over.envelope).toMatchObject({
      ok: false,
      error: { code: 'QUEUE_FULL', message: expect.stringContaining('code_execution_max_running') },
    });
    for (const id of ids) await resume({ execution_id: id, cancel: true });
    expect((await finalOf(await start('1'))).envelope).toEqual({ ok: true, value: 1 });
  });

  it('a yielded run holds no pool worker: with both workers spinning, another program runs', async () => {
    // code_execution_pool_size is 2: without leaving the pool, the third would wait for good.
    const spinners = [];
    for (let i = 0; i < 2; i++) {
      spinners.push(running(await start('while (true) {}')).execution_id);
    }
    expect((await finalOf(await start('"third"'))).envelope).toEqual({ ok: true, value: 'third' });
    for (const id of spinners) {
      expect(running(await resume({ execution_id: id, wait_ms: 0 })).execution_id).toBe(id);
      await resume({ execution_id: id, cancel: true });
    }
  });

  it('keeps a run from its start (an MCP task): it answers running at once and its end stays readable', async () => {
    const answer = await startCodeExecution(runtime, { code: '6 * 7' }, AGENT, { keep: true });
    const id = running(answer).execution_id;
    // A run that ends before code_execution_yield_ms is kept all the same, and only for its owner.
    const final = ended(await resume({ execution_id: id, wait_ms: 5000 }));
    expect(final.envelope).toEqual({ ok: true, value: 42 });
    expect((await runtime.runs.list(AGENT)).map((s) => s.execution_id)).toContain(id);
    expect(await resume({ execution_id: id }, OTHER)).toMatchObject({
      state: 'refused',
      error: { code: 'EXECUTION_NOT_FOUND' },
    });
  });

  it('yields execute in its own shape and continues it', async () => {
    const answer = await startExecute(
      runtime,
      {
        code: `console.log('hi'); const r = await tools.fixture.fail({message: 'x'}); return r.ok;`,
      },
      AGENT,
      {},
    );
    const snapshot = await settle(
      async () =>
        running(
          await continueRun(
            runtime,
            { execution_id: running(answer).execution_id, timeout_ms: 0 },
            'execute',
            AGENT,
            {},
          ),
        ),
      (s) => s.waiting_for.length > 0,
    );
    const approvalId = snapshot.waiting_for[0]!.approval_id;
    await runtime.approvals.decide(approvalId, 'deny', 'admin');
    const final = await continueRun(
      runtime,
      { execution_id: snapshot.execution_id, timeout_ms: 60_000 },
      'execute',
      AGENT,
      {},
    );
    expect(final).toMatchObject({
      state: 'ended',
      kind: 'execute',
      end: { result: { result: { status: 'completed', result: false, logs: ['hi'] } } },
    });
  });
});

const ADMIN_CALLER: Caller = { kind: 'admin' };
