import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVERS } from '../../test/helpers.ts';
import { resolveConfig } from '../config/index.ts';
import { silentLogger } from '../util/logger.ts';
import { jsonBytes } from './fit-output.ts';
import { createRuntime, type Runtime } from './index.ts';

/** Limits the host enforces on guests, attacked with real workers and a real upstream process. */
const MAX_OUTPUT_BYTES = 4096;
const CODE_MODE_MAX_OUTPUT_BYTES = 2048;
const MAX_HOST_CALLS = 50;

let runtime: Runtime;
/** A 16 MB memory cap, no upstreams. */
let small: Runtime;

beforeAll(async () => {
  const config = resolveConfig(
    {
      code_execution_pool_size: 2,
      code_execution_max_output_bytes: MAX_OUTPUT_BYTES,
      code_execution_max_host_calls: MAX_HOST_CALLS,
      code_mode: { max_output_bytes: CODE_MODE_MAX_OUTPUT_BYTES },
      mcpServers: [SERVERS.fixture],
    },
    { baseDir: process.cwd() },
  );
  runtime = createRuntime(config, silentLogger(), { warmWorkers: 2 });
  small = createRuntime(
    resolveConfig(
      { code_execution_pool_size: 1, code_execution_memory_limit_mb: 16 },
      { baseDir: process.cwd() },
    ),
    silentLogger(),
    { warmWorkers: 1 },
  );
  await Promise.all([runtime.start(), small.start()]);
});

afterAll(async () => {
  await Promise.all([runtime?.stop(), small?.stop()]);
});

type Failure = { code: string; message: string; stack?: string };
const run = (code: string, options: Record<string, unknown> = {}, rt = runtime) =>
  rt.service.execute({ code, options });

/** Runs `call` with `setup` in place, then removes any toJSON the setup planted. */
const attack = (setup: string, call: string) =>
  `${setup}\nvar r; try { r = ${call}; } finally { delete Object.prototype.toJSON; delete Array.prototype.toJSON; }\nr`;

const ECHO = "{server: 'fixture', tool: 'echo'}";

describe('call_tools limits are judged by the host on what was sent', () => {
  it.each([
    [
      'Object.prototype.toJSON swaps in 150 elements',
      attack(
        "var big = Array.from({length: 150}, () => ({server: 'fixture', tool: 'sleep', args: {ms: 100}}));\nObject.prototype.toJSON = function () { return this.requests ? {requests: big} : this; };",
        `call_tools([${ECHO}])`,
      ),
      'call_tools: the batch has 150 elements; at most 100 are allowed',
    ],
    [
      'Array.prototype.toJSON grows the batch to 101 elements',
      attack(
        `Array.prototype.toJSON = function () { return this.length === 1 ? Array.from({length: 101}, () => (${ECHO})) : this; };`,
        `call_tools([${ECHO}])`,
      ),
      'call_tools: the batch has 101 elements; at most 100 are allowed',
    ],
    [
      'a Proxy array shows 2 elements to the check and 150 to the copy',
      attack(
        `var el = ${ECHO}, reads = 0;\nvar arr = new Proxy([el, el], { get(t, k) { if (k === 'length') return ++reads <= 4 ? 2 : 150; return k in t ? t[k] : el; } });`,
        'call_tools(arr)',
      ),
      'call_tools: the batch has 150 elements; at most 100 are allowed',
    ],
    [
      'a max_parallel getter says 2 to the check and 64 to the encoder',
      attack(
        'var n = 0, opts = { get max_parallel() { return n++ === 0 ? 2 : 64; } };',
        "call_tools(Array.from({length: 40}, () => ({server: 'fixture', tool: 'sleep', args: {ms: 50}})), opts)",
      ),
      'call_tools: options.max_parallel must be an integer from 1 to 32',
    ],
    [
      'toJSON makes max_parallel fractional',
      attack(
        'Object.prototype.toJSON = function () { return this.requests ? {requests: this.requests, max_parallel: 2.5} : this; };',
        `call_tools([${ECHO}])`,
      ),
      'call_tools: options.max_parallel must be an integer from 1 to 32',
    ],
    [
      'toJSON turns requests into a string',
      attack(
        "Object.prototype.toJSON = function () { return this.requests ? {requests: 'x'} : this; };",
        `call_tools([${ECHO}])`,
      ),
      'call_tools: requests must be an array of {server, tool, args}',
    ],
    [
      'toJSON turns an element into null',
      attack(
        "Object.prototype.toJSON = function () { return this.tool === 'echo' ? null : this; };",
        `call_tools([${ECHO}])`,
      ),
      'call_tools: element 0: must be an object {server, tool, args}',
    ],
    [
      'a server getter gives a string to the check and a number to the copy',
      attack(
        "var reads = 0, el = { get server() { return ++reads <= 2 ? 'fixture' : 5; }, tool: 'echo' };",
        'call_tools([el])',
      ),
      'call_tools: element 0: server must be a non-empty string',
    ],
    [
      'an args getter gives an object to the check and an array to the copy',
      attack(
        "var reads = 0, el = { server: 'fixture', tool: 'echo', get args() { return ++reads <= 2 ? {} : [1]; } };",
        'call_tools([el])',
      ),
      'call_tools: element 0: args must be an object',
    ],
    [
      'toJSON forges a call_tool server',
      attack(
        "Object.prototype.toJSON = function () { return this.tool === 'echo' ? {server: 7, tool: 'echo', args: {}} : this; };",
        "call_tool('fixture', 'echo', {})",
      ),
      'call_tool: server must be a non-empty string',
    ],
    [
      'toJSON forges call_tool args',
      attack(
        "Object.prototype.toJSON = function () { return this.tool === 'echo' ? {server: 'fixture', tool: 'echo', args: null} : this; };",
        "call_tool('fixture', 'echo', {})",
      ),
      'call_tool: args must be an object',
    ],
  ])('%s: one INVALID_ARGS envelope, nothing dispatched', async (_name, code, message) => {
    const result = await run(code);
    expect(result.envelope).toEqual({
      ok: true,
      value: { ok: false, error: { code: 'INVALID_ARGS', message } },
    });
    expect(result.toolCalls).toEqual([]);
  });
});

describe('the host-call budget (code_execution_max_host_calls)', () => {
  it.each([
    ['a console.log loop', 'for (;;) console.log(1)'],
    [
      'a call_tool loop that swallows every failure',
      "for (;;) { try { call_tool('fixture', 'echo', {}) } catch (e) {} }",
    ],
    ['a loop of calls it never awaits', 'for (;;) tools.fixture.echo({})'],
    ['a catalog loop', 'for (;;) catalog.namespaces.list()'],
  ])('ends %s with RESOURCE_LIMIT_EXCEEDED', async (_name, code) => {
    const result = await run(code, { timeout_ms: 20_000 });
    expect(result.envelope).toMatchObject({
      ok: false,
      error: {
        code: 'RESOURCE_LIMIT_EXCEEDED',
        message: `host-call budget exceeded: more than ${MAX_HOST_CALLS} tool, catalog and log calls (code_execution_max_host_calls)`,
      },
    });
  });
  it('lets a run make exactly the budget', async () => {
    const result = await run(`for (let i = 0; i < ${MAX_HOST_CALLS}; i++) console.log(i); 'done'`);
    expect(result.envelope).toMatchObject({ ok: true, value: 'done' });
  });
});

describe('output caps hold for errors too', () => {
  it.each([
    [
      'a thrown 5 MB string',
      "throw 'x'.repeat(5 * 1024 * 1024)",
      /^x+… \[cut: 5242880 bytes -> \d+ bytes\]$/,
    ],
    [
      'an Error with a 5 MB message',
      "throw new Error('é'.repeat(2.5 * 1024 * 1024))",
      /^é+… \[cut: 5242880 bytes -> \d+ bytes\]$/,
    ],
    [
      'an Error whose stack names a 1 MB function',
      "var n = 'f'.repeat(2 ** 20); var o = {[n]: function () { throw new TypeError('deep') }}; o[n]()",
      /^TypeError: deep$/,
    ],
    [
      '40 long log lines, then a throw',
      "for (let i = 0; i < 40; i++) console.log('y'.repeat(4000)); throw new Error('late')",
      /^late$/,
    ],
    [
      'a message full of characters JSON escapes',
      "throw new Error('\"\\\\\\u0001'.repeat(2 ** 20))",
      /… \[cut: \d+ bytes -> \d+ bytes\]$/,
    ],
  ])('%s stays within code_execution_max_output_bytes', async (_name, code, message) => {
    const result = await run(code);
    expect(jsonBytes(result.envelope)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    const error = (result.envelope as { error: Failure }).error;
    expect(error.code).toBe('RUNTIME_ERROR');
    expect(error.message).toMatch(message);
  });
  it('cuts the stack with a marker and the logs with a line saying how many were cut', async () => {
    const stack = await run(
      "var n = 'f'.repeat(2 ** 20); var o = {[n]: function () { throw new TypeError('deep') }}; o[n]()",
    );
    expect((stack.envelope as { error: Failure }).error.stack).toMatch(
      /… \[cut: \d+ bytes -> \d+ bytes\]/,
    );
    const logs = await run(
      "for (let i = 0; i < 40; i++) console.log('y'.repeat(4000)); throw new Error('late')",
    );
    const lines = (logs.envelope as { logs: string[] }).logs;
    expect(lines.at(-1)).toMatch(/^… \[cut: \d+ of 40 log lines\]$/);
  });
  it('keeps a successful value whole and cuts only the logs beside it', async () => {
    const result = await run(
      "for (let i = 0; i < 40; i++) console.log('y'.repeat(4000)); 'v'.repeat(3000)",
    );
    expect(jsonBytes(result.envelope)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(result.envelope).toMatchObject({ ok: true, value: 'v'.repeat(3000) });
  });
  it.each([
    ['a thrown 5 MB string', "throw 'x'.repeat(5 * 1024 * 1024)"],
    ['an Error with a 5 MB message', "throw new Error('x'.repeat(5 * 1024 * 1024))"],
    [
      'logs and tool calls, then a 5 MB Error',
      "for (let i = 0; i < 20; i++) { console.log('z'.repeat(200)); await tools.fixture.echo({}); }\nthrow new Error('x'.repeat(5 * 1024 * 1024))",
    ],
  ])('%s in execute stays within code_mode.max_output_bytes', async (_name, code) => {
    const { result } = await runtime.execute.execute({ code });
    expect(jsonBytes(result)).toBeLessThanOrEqual(CODE_MODE_MAX_OUTPUT_BYTES);
    expect(result.error).toMatchObject({
      kind: 'ExecutionFailure',
      message: expect.stringMatching(/… \[cut: \d+ bytes -> \d+ bytes\]$/),
    });
  });
});

describe('guest faults are guest errors', () => {
  it.each([
    [
      'a getter that recurses forever on the returned object',
      'main',
      '({ get x() { return this.x } })',
      'RUNTIME_ERROR',
      /stack overflow/,
    ],
    [
      'a getter that throws on the returned object',
      'main',
      '({ a: { get x() { throw new Error("boom") } }, f() {} })',
      'RUNTIME_ERROR',
      /^boom$/,
    ],
    [
      'a getter that throws, under a 16 MB cap',
      'small',
      '({ get x() { throw new RangeError("boom") } })',
      'RUNTIME_ERROR',
      /^RangeError: boom$/,
    ],
    [
      'an out-of-memory inside a regex',
      'main',
      "/a*/.exec('a'.repeat(2 ** 24))[0].length",
      'MEMORY_LIMIT_EXCEEDED',
      /memory limit/,
    ],
    [
      'a huge key the serializer must name (cut), under a 16 MB cap',
      'small',
      "var o = {}; o['k'.repeat(2 ** 22)] = function () {}; o",
      'SERIALIZATION_ERROR',
      /^Result contains non-JSON-serializable values \(functions, circular references, etc\.\)$/,
    ],
    [
      "'a'.repeat(2 ** 27) under a 16 MB cap",
      'small',
      "'a'.repeat(2 ** 27).length",
      'MEMORY_LIMIT_EXCEEDED',
      /memory limit \(16 MB\)/,
    ],
  ])('%s', async (_name, which, code, expected, message) => {
    const result = await run(code, {}, which === 'small' ? small : runtime);
    const error = (result.envelope as { error: Failure }).error;
    expect(error.code).toBe(expected);
    expect(error.message).toMatch(message);
  });
});

describe('the trace is in submission order', () => {
  const SLOW_FIRST_MS = 500;
  it.each([
    [
      'awaited tools.* calls',
      `const a = tools.fixture.sleep({ms: ${SLOW_FIRST_MS}}); const b = tools.fixture.echo({}); await Promise.all([a, b]); 1`,
    ],
    [
      'a call_tools batch',
      `call_tools([{server: 'fixture', tool: 'sleep', args: {ms: ${SLOW_FIRST_MS}}}, ${ECHO}], {max_parallel: 2}); 1`,
    ],
  ])('tool_calls list %s in the order they were made', async (_name, code) => {
    const result = await run(code);
    expect(result.envelope).toMatchObject({ ok: true });
    expect(result.toolCalls.map((c) => [c.tool, c.ok])).toEqual([
      ['sleep', true],
      ['echo', true],
    ]);
  });
  it('execute lists toolCalls in the order they were made', async () => {
    const { result } = await runtime.execute.execute({
      code: `const a = tools.fixture.sleep({ms: ${SLOW_FIRST_MS}}); const b = tools.fixture.echo({}); await Promise.all([a, b]); return 1`,
    });
    expect(result.toolCalls.map((c) => c.tool)).toEqual(['fixture.sleep', 'fixture.echo']);
  });
  it('keeps a call still in flight at the end as CANCELLED, and the trace no longer changes', async () => {
    const cancelled = async () =>
      (
        (await run("JSON.parse(call_tool('fixture','stats',{}).result.content[0].text).cancelled"))
          .envelope as { value: number }
      ).value;
    const before = await cancelled();
    const result = await run('tools.fixture.sleep({ms: 5000}); await tools.fixture.echo({}); 1');
    const trace = structuredClone(result.toolCalls);
    expect(trace.map((c) => [c.tool, c.ok, c.code])).toEqual([
      ['sleep', false, 'CANCELLED'],
      ['echo', true, undefined],
    ]);
    // The cancelled call has settled at the upstream: nothing is left to change the trace.
    await expect.poll(cancelled, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(result.toolCalls).toEqual(trace);
  });
});
