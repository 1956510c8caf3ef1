/**
 * Runs that outlive their request over REST and the CLI, with real parts: `codemux serve` with
 * `code_execution_yield_ms: 1000` and a `tool_policy` rule that holds `mut.write` for approval.
 * A held run answers running, `GET /api/v1/executions/{id}` waits, the approval releases it and
 * the final answer is the body a gateway that never yields gives the same program (a second
 * gateway with `code_execution_yield_ms: 0`); cancel; another token's id; `code exec` waiting
 * and saying so on stderr, `--detach`, `executions list|wait|cancel`.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, runCli, until } from './helpers.ts';
import { policyConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const POLICY = { rules: [{ server: 'mut', tool: 'write', action: 'ask' }] };
const PROGRAM =
  "console.log('before'); const r = call_tool('mut','write',{path:'/tmp/x'}); console.log('after'); r";
/** What the mutable server received: calls per tool. */
const RECEIVED = "JSON.parse(call_tool('mut','received',{}).result.content[0].text)";
/** What the program answers once the held call is approved (key order as the gateway writes it). */
const APPROVED = {
  ok: true,
  value: { ok: true, result: { content: [{ type: 'text', text: 'write:{"path":"/tmp/x"}' }] } },
  logs: ['before', 'after'],
};

/** A body with its per-request ids replaced, as JSON text: equal text is an equal answer. */
const sameBytes = (body: Json) =>
  JSON.stringify({
    ...body,
    ...(body.activity_id ? { activity_id: 'ACTIVITY' } : {}),
    request_id: 'REQUEST',
  });

let held: RunningGateway;
let never: RunningGateway;
let heldConfig: string;

beforeAll(async () => {
  // One run alive at a time: each test ends its runs (QUEUE_FULL shows the bound).
  heldConfig = policyConfig({
    tool_policy: POLICY,
    code_execution_yield_ms: 1000,
    code_execution_max_running: 1,
  });
  const neverConfig = policyConfig({ tool_policy: POLICY, code_execution_yield_ms: 0 });
  [held, never] = await Promise.all([startGateway(heldConfig), startGateway(neverConfig)]);
  await Promise.all([waitUntilReady(held), waitUntilReady(never)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([held?.stop(), never?.stop()]);
});

/** The one pending approval of `g` that `caller` asked for. */
async function pendingOf(g: RunningGateway, caller = 'admin'): Promise<Json> {
  return until('a pending approval', async () => {
    const { json } = await g.rest('GET', '/api/v1/approvals?status=pending');
    return json.items.find((a: Json) => a.caller === caller);
  });
}

const approve = (g: RunningGateway, id: string) =>
  g.rest('POST', `/api/v1/approvals/${id}/approve`, {});

/** Starts PROGRAM on the held gateway; its running answer. */
async function startHeld(headers?: Record<string, string>): Promise<Json> {
  const started = await held.rest('POST', '/api/v1/code/exec', { code: PROGRAM }, headers);
  expect(started.status).toBe(200);
  expect(started.json).toMatchObject({ ok: true, status: 'running' });
  return started.json;
}

describe('REST', () => {
  it('a held run answers running; the wait after the approval answers what a run that never yielded answers', async () => {
    const running = await startHeld();
    expect(Object.keys(running)).toEqual([
      'ok',
      'status',
      'execution_id',
      'elapsed_ms',
      'waiting_for',
      'logs',
      'request_id',
    ]);
    const approval = await pendingOf(held);
    expect(running.waiting_for).toEqual([
      { approval_id: approval.id, server: 'mut', tool: 'write' },
    ]);
    expect(running.logs).toEqual(['before']);
    expect(running.elapsed_ms).toBeGreaterThanOrEqual(1000);
    const id = running.execution_id;

    const still = await held.rest('GET', `/api/v1/executions/${id}?wait_ms=0`);
    expect(still.status).toBe(200);
    expect(still.json).toMatchObject({ ok: true, status: 'running', execution_id: id });
    const listed = await held.rest('GET', '/api/v1/executions?status=running');
    expect(listed.json.items.map((r: Json) => r.execution_id)).toContain(id);
    expect(listed.json.items.find((r: Json) => r.execution_id === id)).toMatchObject({
      kind: 'code_execution',
      status: 'running',
      caller: 'admin',
      waiting_for: running.waiting_for,
    });

    const waiting = held.rest('GET', `/api/v1/executions/${id}?wait_ms=600000`);
    expect((await approve(held, approval.id)).status).toBe(200);
    const final = await waiting;

    // The same program on a gateway that never yields, approved while its POST waits.
    const direct = never.rest('POST', '/api/v1/code/exec', { code: PROGRAM });
    expect((await approve(never, (await pendingOf(never)).id)).status).toBe(200);
    const expected = await direct;
    expect(expected.json).toMatchObject(APPROVED);
    expect(final.status).toBe(expected.status);
    expect(sameBytes(final.json)).toBe(sameBytes(expected.json));
    expect(final.json.activity_id).toBe(id);

    // Kept after its end, for every read; listed as done; POST /code/exec continues it too.
    const again = await held.rest('GET', `/api/v1/executions/${id}?wait_ms=0`);
    expect(sameBytes(again.json)).toBe(sameBytes(expected.json));
    const viaExec = await held.rest('POST', '/api/v1/code/exec', { execution_id: id });
    expect(sameBytes(viaExec.json)).toBe(sameBytes(expected.json));
    const done = await held.rest('GET', '/api/v1/executions?status=done');
    expect(done.json.items.map((r: Json) => r.execution_id)).toContain(id);
  }, 60_000);

  it('cancel answers CANCELLED, the held call is never sent, and a second cancel is 409; a run over code_execution_max_running is 429', async () => {
    const writes = async () =>
      (await held.rest('POST', '/api/v1/code/exec', { code: RECEIVED })).json.value.write ?? 0;
    const before = await writes();
    const running = await startHeld();
    const approval = await pendingOf(held);
    const id = running.execution_id;
    const full = await held.rest('POST', '/api/v1/code/exec', { code: '1' });
    expect(full.status).toBe(429);
    expect(full.json).toMatchObject({ ok: false, error: { code: 'QUEUE_FULL' } });
    const cancelled = await held.rest('POST', `/api/v1/executions/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by admin' },
      logs: ['before'],
      activity_id: id,
    });
    const decided = await held.rest('GET', `/api/v1/approvals/${approval.id}`);
    expect(decided.json.status).toBe('expired');
    expect((await approve(held, approval.id)).status).not.toBe(200);
    const again = await held.rest('POST', `/api/v1/executions/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('already ended') },
    });
    // Cancelling through code/exec's continue: 400 with the same code.
    const viaExec = await held.rest('POST', '/api/v1/code/exec', {
      execution_id: id,
      cancel: true,
    });
    expect(viaExec.status).toBe(400);
    expect(viaExec.json.error.code).toBe('INVALID_REQUEST');
    const read = await held.rest('GET', `/api/v1/executions/${id}?wait_ms=0`);
    expect(sameBytes(read.json)).toBe(sameBytes(cancelled.json));
    expect(await writes()).toBe(before);
  }, 60_000);

  it("an agent token sees its own runs only: another token's id is EXECUTION_NOT_FOUND, as an unknown one", async () => {
    const token = async (name: string) => {
      const made = await held.rest('POST', '/api/v1/tokens', { name, servers: ['mut'] });
      expect(made.status).toBe(201);
      return { 'x-api-key': made.json.value.token, 'content-type': 'application/json' };
    };
    const [one, other] = [await token('one'), await token('other')];
    const running = await startHeld(one);
    const id = running.execution_id;
    const asOne = await held.rest('GET', `/api/v1/executions/${id}?wait_ms=0`, undefined, one);
    expect(asOne.json).toMatchObject({ status: 'running', execution_id: id });
    for (const [method, route, body] of [
      ['GET', `/api/v1/executions/${id}?wait_ms=0`],
      ['POST', `/api/v1/executions/${id}/cancel`],
      ['POST', '/api/v1/code/exec', { execution_id: id, wait_ms: 0 }],
      ['GET', '/api/v1/executions/no-such-run?wait_ms=0'],
    ] as const) {
      const refused = await held.rest(method, route, body, other);
      expect(refused.status, `${method} ${route}`).toBe(404);
      expect(refused.json).toMatchObject({
        ok: false,
        error: { code: 'EXECUTION_NOT_FOUND', message: expect.stringMatching(/names no run/) },
        request_id: expect.any(String),
      });
    }
    const theirs = await held.rest('GET', '/api/v1/executions', undefined, other);
    expect(theirs.json.items).toEqual([]);
    const mine = await held.rest('GET', '/api/v1/executions', undefined, one);
    expect(mine.json.items.map((r: Json) => r.execution_id)).toEqual([id]);
    const all = await held.rest('GET', '/api/v1/executions');
    expect(all.json.items.map((r: Json) => r.execution_id)).toContain(id);
    const cancelled = await held.rest('POST', `/api/v1/executions/${id}/cancel`, undefined, one);
    expect(cancelled.json.error).toEqual({ code: 'CANCELLED', message: 'cancelled by token:one' });
  }, 60_000);

  it('bad input is refused naming the field, and nothing runs', async () => {
    const cases: Array<[string, string, unknown, number, string]> = [
      ['GET', '/api/v1/executions?status=maybe', undefined, 400, 'status'],
      ['GET', '/api/v1/executions/x?wait_ms=abc', undefined, 400, 'wait_ms'],
      ['GET', '/api/v1/executions/x?wait_ms=600001', undefined, 400, 'wait_ms'],
      ['POST', '/api/v1/code/exec', { execution_id: 'x', code: '1' }, 400, 'code'],
      ['POST', '/api/v1/code/exec', { execution_id: 'x', wait_ms: -1 }, 400, 'wait_ms'],
      ['POST', '/api/v1/code/exec', { execution_id: 'x', dry_run: true }, 400, 'dry_run'],
      ['POST', '/api/v1/code/exec', { execution_id: 'x' }, 404, 'execution_id'],
      ['POST', '/api/v1/executions/x/cancel', undefined, 404, 'execution_id'],
    ];
    for (const [method, route, body, status, field] of cases) {
      const refused = await held.rest(method, route, body);
      expect(refused.status, `${method} ${route} ${JSON.stringify(body)}`).toBe(status);
      expect(refused.json.ok).toBe(false);
      expect(refused.json.error.message).toContain(field);
    }
  });
});

/** Spawns the CLI; resolves its exit and output, and lets the test read stderr as it comes. */
function spawnCli(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args, '--config', heldConfig], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { out, exited };
}

describe('CLI', () => {
  const cli = (...args: string[]) => runCli([...args, '--config', heldConfig]);

  it('code exec waits to the end, saying at each yield what the run waits for; the output is the run that never yielded', async () => {
    const run = spawnCli(['code', 'exec', '--code', PROGRAM]);
    const approval = await pendingOf(held);
    const line = await until(
      'the still running line',
      async () =>
        run.out.stderr.match(/codemux: still running \(execution (\S+)\): (.*)\n/) ?? undefined,
    );
    expect(line[2]).toBe(`waiting for approval ${approval.id} of mut.write`);
    expect((await cli('approvals', 'approve', approval.id)).code).toBe(0);
    expect(await run.exited).toBe(0);
    const printed = JSON.parse(run.out.stdout);
    expect(printed).toEqual({ ...APPROVED, activity_id: line[1] });
    expect(run.out.stdout).toBe(`${JSON.stringify(printed, null, 2)}\n`);
  }, 60_000);

  it('a run with no approval to wait for is named by its last console line', async () => {
    // Busy for 2.5 s after its lines: past a yield or two (1 s each), then it ends by itself.
    const busy =
      "console.log('first'); console.log('step 2\\nof 2'); const t = Date.now(); while (Date.now() - t < 2500) {} 'done'";
    const run = await cli('code', 'exec', '--code', busy);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ ok: true, value: 'done', logs: ['first', 'step 2\nof 2'] });
    expect(run.stderr).toMatch(/codemux: still running \(execution \S+\): step 2 of 2\n/);
  }, 60_000);

  it('--detach prints the running answer and exits 0; executions list, wait and cancel', async () => {
    const detached = await cli('code', 'exec', '--detach', '--code', PROGRAM);
    expect(detached.code).toBe(0);
    expect(detached.json).toMatchObject({ ok: true, status: 'running', logs: ['before'] });
    expect(detached.json.request_id).toBeUndefined();
    const id = detached.json.execution_id;
    const approval = await pendingOf(held);

    const listed = await cli('executions', 'list', '--status', 'running', '--json');
    expect(listed.code).toBe(0);
    expect(listed.json.items.map((r: Json) => r.execution_id)).toContain(id);
    const table = await cli('executions', 'list', '--status', 'running');
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual([
      'ID',
      'STATUS',
      'KIND',
      'CALLER',
      'STARTED',
      'ELAPSED',
      'WAITING FOR / LAST LOG',
    ]);
    const row = rows.find((r) => r.startsWith(id))!.split(/\s{2,}/);
    expect([row[1], row[2], row[3], row[6]]).toEqual([
      'running',
      'code_execution',
      'admin',
      `approval ${approval.id} of mut.write`,
    ]);

    const waiter = spawnCli(['executions', 'wait', id]);
    await until('the wait to say what it waits for', async () =>
      waiter.out.stderr.includes(
        `codemux: still running (execution ${id}): waiting for approval ${approval.id} of mut.write\n`,
      )
        ? true
        : undefined,
    );
    expect((await cli('approvals', 'approve', approval.id)).code).toBe(0);
    expect(await waiter.exited).toBe(0);
    expect(JSON.parse(waiter.out.stdout)).toEqual({ ...APPROVED, activity_id: id });
    // An ended run's answer is printed at once, with no still-running line.
    const read = await cli('executions', 'wait', id);
    expect(read).toMatchObject({ code: 0, stderr: '', json: APPROVED });

    const second = await cli('code', 'exec', '--detach', '--code', PROGRAM);
    const cancelled = await cli('executions', 'cancel', second.json.execution_id);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by admin' },
    });
    // Its answer: exit 1 as code exec gives a failed run; a second cancel is refused.
    expect((await cli('executions', 'wait', second.json.execution_id)).code).toBe(1);
    const twice = await cli('executions', 'cancel', second.json.execution_id);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^codemux: execution \S+ already ended/);
  }, 60_000);

  it('an unknown id is one line naming it and exit 1', async () => {
    for (const verb of ['wait', 'cancel']) {
      const run = await cli('executions', verb, 'no-such-run');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^codemux: execution_id "no-such-run" names no run [^\n]*\n$/);
    }
  });

  it('standalone, --detach is refused (nothing outlives the command); executions need the gateway', async () => {
    const standalone = policyConfig({ listen: '127.0.0.1:1', tool_policy: POLICY });
    const run = await runCli(['code', 'exec', '--detach', '--code', '1', '--config', standalone]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('codemux: --detach needs a running gateway');
    expect(run.json).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    for (const args of [['list'], ['wait', 'x'], ['cancel', 'x']]) {
      const refused = await runCli(['executions', ...args, '--config', standalone]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        'codemux: no codemux gateway answers at the config\'s "listen": runs that outlive their request live in the running gateway (start it with `codemux serve`, or name it with --url)\n',
      );
    }
  });
});
