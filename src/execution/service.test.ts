import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SERVER, SERVERS } from '../../test/helpers.ts';
import { resolveConfig } from '../config/index.ts';
import { silentLogger } from '../util/logger.ts';
import { createRuntime, type Runtime } from './index.ts';

let runtime: Runtime;

beforeAll(async () => {
  const config = resolveConfig(
    {
      code_execution_pool_size: 4,
      mcpServers: [
        SERVERS.fixture,
        SERVERS.everything,
        {
          name: 'limited',
          command: process.execPath,
          args: [FIXTURE_SERVER],
          max_concurrent_requests: 1,
        },
        {
          name: 'queued',
          command: process.execPath,
          args: [FIXTURE_SERVER],
          max_concurrent_requests: 1,
          queue_size: 9,
        },
        { name: 'locked', command: process.execPath, args: [FIXTURE_SERVER], quarantined: true },
        { name: 'off', command: process.execPath, args: [FIXTURE_SERVER], enabled: false },
        {
          name: 'broken',
          command: process.execPath,
          args: ['-e', 'console.error("boom: missing API token"); process.exit(3)'],
        },
      ],
    },
    { baseDir: process.cwd() },
  );
  runtime = createRuntime(config, silentLogger(), { warmWorkers: 2 });
  await runtime.start();
});

afterAll(async () => {
  await runtime.stop();
});

const run = (args: Record<string, unknown>) => runtime.service.execute(args);
const value = async (args: Record<string, unknown>) => {
  const result = await run(args);
  expect(result.envelope).toMatchObject({ ok: true });
  return (result.envelope as { value: unknown }).value;
};
const error = async (args: Record<string, unknown>) => {
  const result = await run(args);
  expect(result.envelope.ok).toBe(false);
  return (
    result.envelope as {
      error: { code: string; message: string; line?: number; column?: number; stack?: string };
    }
  ).error;
};

describe('program value', () => {
  it('is the completion value of the last statement', async () => {
    expect(await value({ code: '({ result: input.value * 2 })', input: { value: 21 } })).toEqual({
      result: 42,
    });
  });
  it('is a top-level return, with early exits, mixed with a completion value', async () => {
    const code = 'const x = input.n;\nif (x > 1) return {big: x};\n({small: x})';
    expect(await value({ code, input: { n: 5 } })).toEqual({ big: 5 });
    expect(await value({ code, input: { n: 0 } })).toEqual({ small: 0 });
  });
  it('supports top-level await with tools.* and return together', async () => {
    const code =
      'const r = await tools.fixture.echo({message: "a"});\nif (!r.ok) return r;\nreturn r.data;';
    expect(await value({ code })).toBe('{"message":"a"}');
  });
  it('turns a top-level undefined into null', async () => {
    expect(await value({ code: 'var x = 1;' })).toBeNull();
  });
  it('runs TypeScript with interfaces, enums and namespaces', async () => {
    const code =
      'interface User { name: string }\nenum Dir { Up = "UP", Down = "DOWN" }\nnamespace Lib { export const v = 42 }\nconst u: User = { name: input.username };\n({ greeting: "Hello " + u.name, d: Dir.Down, v: Lib.v })';
    expect(await value({ code, language: 'typescript', input: { username: 'Alice' } })).toEqual({
      greeting: 'Hello Alice',
      d: 'DOWN',
      v: 42,
    });
  });
  it('supports a top-level return in TypeScript, stripped and transformed', async () => {
    const stripped = 'const users: string[] = input.users;\nreturn {count: users.length};';
    expect(
      await value({ code: stripped, language: 'typescript', input: { users: ['a', 'b'] } }),
    ).toEqual({ count: 2 });
    const transformed = 'enum E { A = "a" }\nif (input.x) return E.A;\n"none"';
    expect(await value({ code: transformed, language: 'typescript', input: { x: 1 } })).toBe('a');
    expect(await value({ code: transformed, language: 'typescript', input: { x: 0 } })).toBe(
      'none',
    );
  });
  it('starts each execution from fresh globals', async () => {
    await value({ code: 'globalThis.leak = 1; Array.prototype.evil = 2; 0' });
    expect(await value({ code: '[typeof leak, typeof [].evil]' })).toEqual([
      'undefined',
      'undefined',
    ]);
  });
});

describe("errors name the caller's line and column", () => {
  it('reports a syntax error with its position', async () => {
    const e = await error({ code: 'var x = { missing bracket' });
    expect(e.code).toBe('SYNTAX_ERROR');
    expect(e).toMatchObject({ line: 1, column: 19 });
    expect(e.message).toMatch(/^SyntaxError: /);
  });
  it('reports the real syntax error of a source with a top-level return, not the return', async () => {
    const e = await error({ code: 'var a = 1;\nif (a) {\n  return a;\n}\nvar b = (;\n' });
    expect(e).toMatchObject({ code: 'SYNTAX_ERROR', line: 5, column: 10 });
    expect(e.message).toBe('SyntaxError: Unexpected token (line 5, column 10)');
    // A source that parses keeps its top-level return.
    expect(await value({ code: 'if (true) { return 5 }\n7' })).toBe(5);
  });
  it('reports a runtime error with its stack position', async () => {
    const e = await error({ code: 'var x = null; x.property' });
    expect(e.code).toBe('RUNTIME_ERROR');
    expect(e.message).toBe("TypeError: cannot read property 'property' of null");
    expect(e).toMatchObject({ line: 1, column: 16 });
    expect(e.stack).toContain('code.js:1:16');
  });
  it('maps positions through a top-level return rewrite', async () => {
    const e = await error({ code: 'if (input.a) return 1;\nconst q = null;\nq.boom' });
    expect(e).toMatchObject({ code: 'RUNTIME_ERROR', line: 3, column: 2 });
  });
  it('maps positions through a TypeScript enum transform', async () => {
    const e = await error({
      code: 'enum E { A }\nconst n: number = 1;\n\nnull.x',
      language: 'typescript',
    });
    expect(e).toMatchObject({ code: 'RUNTIME_ERROR', line: 4 });
    expect(e.stack).toContain('code.ts:4:');
  });
  it('keeps columns exact when types are stripped', async () => {
    const e = await error({
      code: 'const a: string = "x"; const b: any = null; b.c',
      language: 'typescript',
    });
    expect(e).toMatchObject({ line: 1, column: 46 });
  });
  it('reports TypeScript syntax errors as TRANSPILE_ERROR with a position', async () => {
    const e = await error({ code: 'const a = 1;\nconst x: = 1', language: 'typescript' });
    expect(e).toMatchObject({ code: 'TRANSPILE_ERROR', line: 2, column: 10 });
  });
  it("points at the caller's line when the error is raised inside a host-provided function", async () => {
    const e = await error({ code: 'const a = 1;\nObject.keys(tools)' });
    expect(e).toMatchObject({ code: 'RUNTIME_ERROR', line: 2 });
  });
  it('uses the message of a plain Error without a prefix', async () => {
    const e = await error({ code: "throw new Error('Something went wrong')" });
    expect(e.message).toBe('Something went wrong');
  });
});

describe('refusals before anything runs', () => {
  it.each([
    [{}, 'INVALID_REQUEST', /exactly one of 'code'/],
    [{ code: '' }, 'INVALID_REQUEST', /exactly one/],
    [{ code: '1', script: 'x' }, 'INVALID_REQUEST', /not both, not neither/],
    [{ code: '1', language: 'python' }, 'INVALID_LANGUAGE', /"python"/],
    [{ code: '1', input: [1] }, 'INVALID_REQUEST', /input must be a JSON object/],
    [{ code: '1', options: { timeout_ms: 0 } }, 'INVALID_OPTIONS', /options.timeout_ms/],
    [{ code: '1', options: { timeout_ms: 600001 } }, 'INVALID_OPTIONS', /options.timeout_ms/],
    [{ code: '1', options: { timeout_ms: 1.5 } }, 'INVALID_OPTIONS', /options.timeout_ms/],
    [{ code: '1', options: { max_tool_calls: -1 } }, 'INVALID_OPTIONS', /options.max_tool_calls/],
    [{ code: '1', options: { max_tool_calls: 0.5 } }, 'INVALID_OPTIONS', /options.max_tool_calls/],
    [
      { code: '1', options: { allowed_servers: 'fixture' } },
      'INVALID_OPTIONS',
      /options.allowed_servers/,
    ],
    [
      { code: '1', options: { allowed_servers: [1] } },
      'INVALID_OPTIONS',
      /options.allowed_servers/,
    ],
    [{ code: 'x'.repeat(262_145) }, 'INVALID_REQUEST', /262144 bytes/],
  ])('refuses %j with %s', async (args, code, message) => {
    const e = await error(args as Record<string, unknown>);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });
});

describe('call_tool', () => {
  it('returns the upstream CallToolResult in its wire form', async () => {
    expect(await value({ code: "call_tool('everything', 'echo', {message: 'hi'})" })).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'Echo: hi' }] },
    });
  });
  it('turns an isError result into TOOL_ERROR and keeps the result', async () => {
    const v = (await value({ code: "call_tool('fixture', 'fail', {message: 'nope'})" })) as Record<
      string,
      unknown
    >;
    expect(v).toMatchObject({
      ok: false,
      error: { code: 'TOOL_ERROR', message: 'nope' },
      result: { isError: true },
    });
  });
  it('names an unknown server or tool as UPSTREAM_ERROR', async () => {
    expect(await value({ code: "call_tool('nope', 'x', {}).error" })).toEqual({
      code: 'UPSTREAM_ERROR',
      message: 'server not found: nope',
    });
    expect(await value({ code: "call_tool('fixture', 'nope', {}).error.message" })).toBe(
      'tool not found: fixture.nope',
    );
  });
  it('reports a server that fails to start as SERVER_UNAVAILABLE with its stderr tail', async () => {
    const e = (await value({ code: "call_tool('broken', 'x', {}).error" })) as {
      code: string;
      message: string;
    };
    expect(e.code).toBe('SERVER_UNAVAILABLE');
    expect(e.message).toContain('boom: missing API token');
    // The others keep working.
    expect(await value({ code: "call_tool('fixture', 'echo', {}).ok" })).toBe(true);
  });
  it('refuses disabled and quarantined servers without dispatching', async () => {
    expect(await value({ code: "call_tool('off', 'echo', {}).error.code" })).toBe(
      'SERVER_UNAVAILABLE',
    );
    expect(await value({ code: "call_tool('locked', 'echo', {}).error" })).toMatchObject({
      code: 'ACCESS_DENIED',
      message: expect.stringContaining('quarantined'),
    });
  });
  it('returns INVALID_ARGS envelopes for malformed calls', async () => {
    expect(await value({ code: "call_tool('fixture').error.code" })).toBe('INVALID_ARGS');
    expect(await value({ code: "call_tool('fixture', 'echo', [1]).error.message" })).toBe(
      'call_tool: args must be an object',
    );
    expect(await value({ code: "call_tool('', 'echo', {}).error.code" })).toBe('INVALID_ARGS');
  });
  it('enforces allowed_servers as an envelope, dispatching nothing', async () => {
    const result = await run({
      code: "call_tool('everything', 'echo', {message: 'x'})",
      options: { allowed_servers: ['fixture'] },
    });
    expect(result.envelope).toEqual({
      ok: true,
      value: {
        ok: false,
        error: {
          code: 'SERVER_NOT_ALLOWED',
          message: "Server 'everything' is not in the allowed servers list",
        },
      },
    });
  });
});

describe('max_tool_calls', () => {
  it('refuses the first call over budget, then ends a runaway loop', async () => {
    const result = await run({
      code: "for(var i=0;i<10;i++){call_tool('fixture','echo',{})}",
      options: { max_tool_calls: 5 },
    });
    expect(result.envelope).toEqual({
      ok: false,
      error: {
        code: 'MAX_TOOL_CALLS_EXCEEDED',
        message: 'Exceeded maximum tool calls limit (5)',
        stack: '',
      },
    });
    expect(result.toolCalls.filter((c) => c.ok)).toHaveLength(5);
  });
  it('lets a program that checks the refusal wrap up', async () => {
    const code =
      "var out = []; for (var i = 0; i < 10; i++) { var r = call_tool('fixture','echo',{}); if (!r.ok) { out.push(r.error.code); break; } out.push('ok'); } out";
    expect(await value({ code, options: { max_tool_calls: 2 } })).toEqual([
      'ok',
      'ok',
      'MAX_TOOL_CALLS_EXCEEDED',
    ]);
  });
  it('gives an over-budget batch per-slot refusals and dispatches only what fits', async () => {
    const code =
      "call_tools([1,2,3,4].map(() => ({server: 'fixture', tool: 'echo'}))).map(r => r.ok ? 'ok' : r.error.code)";
    expect(await value({ code, options: { max_tool_calls: 2 } })).toEqual([
      'ok',
      'ok',
      'MAX_TOOL_CALLS_EXCEEDED',
      'MAX_TOOL_CALLS_EXCEEDED',
    ]);
  });
});

describe('call_tools', () => {
  it.each([
    ['call_tools("x")', 'call_tools: requests must be an array of {server, tool, args}'],
    [
      'call_tools([{server: "a", tool: "b"}, 3])',
      'call_tools: element 1: must be an object {server, tool, args}',
    ],
    [
      'call_tools([{server: "a", tool: "b"}, {server: "", tool: "b"}])',
      'call_tools: element 1: server must be a non-empty string',
    ],
    [
      'call_tools([{server: "a", tool: 1}])',
      'call_tools: element 0: tool must be a non-empty string',
    ],
    [
      'call_tools([{server: "a", tool: "b", args: 5}])',
      'call_tools: element 0: args must be an object',
    ],
    [
      'call_tools([{server: "a", tool: "b"}, , {}])',
      'call_tools: element 1: is a hole in a sparse array',
    ],
    ['call_tools([], 5)', 'call_tools: options must be an object'],
    [
      'call_tools([], {max_parallel: 0})',
      'call_tools: options.max_parallel must be an integer from 1 to 32',
    ],
    [
      'call_tools([], {max_parallel: 33})',
      'call_tools: options.max_parallel must be an integer from 1 to 32',
    ],
    [
      'call_tools([], {max_parallel: 2.5})',
      'call_tools: options.max_parallel must be an integer from 1 to 32',
    ],
    [
      'call_tools(new Array(101).fill({server: "a", tool: "b"}))',
      'call_tools: the batch has 101 elements; at most 100 are allowed',
    ],
  ])('%s is one INVALID_ARGS envelope', async (code, message) => {
    const result = await run({ code });
    expect(result.envelope).toEqual({
      ok: true,
      value: { ok: false, error: { code: 'INVALID_ARGS', message } },
    });
    expect(result.toolCalls).toHaveLength(0);
  });
  it('returns [] for an empty batch at no cost', async () => {
    const result = await run({ code: 'call_tools([])', options: { max_tool_calls: 1 } });
    expect(result.envelope).toEqual({ ok: true, value: [] });
  });
  it('returns one slot per request in input order; a failure never poisons siblings', async () => {
    const code =
      "call_tools([{server:'fixture',tool:'echo',args:{message:'a'}},{server:'fixture',tool:'fail'},{server:'nope',tool:'x'}]).map(r => r.ok ? r.result.content[0].text : r.error.code)";
    expect(await value({ code })).toEqual(['{"message":"a"}', 'TOOL_ERROR', 'UPSTREAM_ERROR']);
  });
  it('never exceeds max_parallel', async () => {
    await value({ code: "call_tool('fixture','stats',{reset:true})" });
    const code =
      "call_tools(Array.from({length: 12}, () => ({server:'fixture', tool:'sleep', args:{ms: 30}})), {max_parallel: 3}); JSON.parse(call_tool('fixture','stats',{}).result.content[0].text).peak";
    expect(await value({ code })).toBe(3);
  });
  it('serializes a batch on a server with max_concurrent_requests 1 and a queue', async () => {
    const code =
      "call_tools(Array.from({length: 10}, () => ({server:'queued', tool:'sleep', args:{ms: 5}}))).filter(r => r.ok).length";
    expect(await value({ code })).toBe(10);
  });
  it('sheds the overflow as QUEUE_FULL on a server without a queue', async () => {
    const code =
      "call_tools(Array.from({length: 10}, () => ({server:'limited', tool:'sleep', args:{ms: 20}})), {max_parallel: 10}).map(r => r.ok ? 'ok' : r.error.code)";
    const slots = (await value({ code })) as string[];
    expect(slots.filter((s) => s === 'ok')).toHaveLength(1);
    expect(slots.filter((s) => s === 'QUEUE_FULL')).toHaveLength(9);
  });
});

describe('tools.* (async dialect)', () => {
  it('resolves Arion envelopes with data from structuredContent or text', async () => {
    expect(await value({ code: 'await tools.fixture.structured({})' })).toEqual({
      ok: true,
      data: { n: 7 },
      meta: { omitted: 0 },
    });
    expect(await value({ code: 'await tools["everything.echo"]({message: "x"})' })).toEqual({
      ok: true,
      data: 'Echo: x',
      meta: { omitted: 0 },
    });
  });
  it('uses lowercase codes with retryable', async () => {
    expect(await value({ code: '(await tools.fixture.nope({})).error' })).toEqual({
      code: 'tool_not_found',
      message: 'tool not found: fixture.nope',
      retryable: false,
    });
    expect(
      await value({
        code: '(await tools.everything.echo({}, 1)).ok',
        options: { allowed_servers: ['fixture'] },
      }),
    ).toBe(false);
    expect(await value({ code: '(await tools.fixture.echo([1])).error.code' })).toBe(
      'invalid_input',
    );
  });
  it('runs awaited calls in parallel', async () => {
    // The upstream counts calls in flight at once: a measure that does not depend on load.
    await value({ code: "call_tool('fixture','stats',{reset:true})" });
    const code =
      "await Promise.all([1,2,3,4].map(() => tools.fixture.sleep({ms: 500}))); JSON.parse(call_tool('fixture','stats',{}).result.content[0].text).peak";
    expect(await value({ code })).toBe(4);
  });
  it('cannot be enumerated or changed', async () => {
    expect((await error({ code: 'Object.keys(tools)' })).message).toMatch(
      /cannot be enumerated or changed/,
    );
    expect((await error({ code: 'tools.x = 1' })).message).toMatch(
      /cannot be enumerated or changed/,
    );
  });
});

describe('limits', () => {
  it('interrupts an infinite loop at the deadline', async () => {
    expect(await error({ code: 'while(true) {}', options: { timeout_ms: 100 } })).toEqual({
      code: 'TIMEOUT',
      message: 'JavaScript execution timed out',
      stack: '',
    });
  });
  it('cancels an in-flight upstream call on timeout', async () => {
    await value({ code: "call_tool('fixture','stats',{reset:true})" });
    const e = await error({
      code: "call_tool('fixture','sleep',{ms: 5000})",
      options: { timeout_ms: 200 },
    });
    expect(e.code).toBe('TIMEOUT');
    // The cancellation reaches the upstream after the timeout answered: wait until it counts.
    const cancelled = () =>
      value({
        code: "JSON.parse(call_tool('fixture','stats',{}).result.content[0].text).cancelled",
      });
    await expect.poll(cancelled, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await cancelled()).toBe(1);
  });
  it('times out a long builtin that ignores the interrupt (watchdog)', async () => {
    const e = await error({
      code: '"ab".repeat(3e7).split("").join("-").length',
      options: { timeout_ms: 100 },
    });
    expect(e.code).toBe('TIMEOUT');
    expect(await value({ code: '1 + 1' })).toBe(2);
  });
  it('ends an allocation bomb with MEMORY_LIMIT_EXCEEDED', async () => {
    const e = await error({ code: 'let a = []; while (true) a.push(new Array(100000).fill(1));' });
    expect(e.code).toBe('MEMORY_LIMIT_EXCEEDED');
  });
  it('makes runaway recursion a RUNTIME_ERROR', async () => {
    const e = await error({ code: 'function f(n) { return f(n + 1) + 1 } f(0)' });
    expect(e).toMatchObject({ code: 'RUNTIME_ERROR', message: 'InternalError: stack overflow' });
  });
  it('refuses results over code_execution_max_output_bytes', async () => {
    expect((await error({ code: '"x".repeat(2 * 1024 * 1024)' })).code).toBe('OUTPUT_TOO_LARGE');
  });
  it('keeps at most 128 log lines of at most 4096 bytes, also on failure', async () => {
    const result = await run({
      code: 'for (let i = 0; i < 200; i++) console.log("line", i); console.warn("y".repeat(5000)); throw new Error("late")',
    });
    const logs = (result.envelope as { logs: string[] }).logs;
    expect(result.envelope.ok).toBe(false);
    expect(logs).toHaveLength(128);
    expect(logs[0]).toBe('line 0');
    const long = await run({ code: 'console.log("é".repeat(3000)); 1' });
    const line = (long.envelope as { logs: string[] }).logs[0]!;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4096);
    expect(line.endsWith('…[truncated]')).toBe(true);
  });
  it('serves another execution while one spins, and stops the spinning one when cancelled', async () => {
    const cancel = new AbortController();
    let spun = false;
    const spinning = runtime.service
      .execute({ code: 'while(true){}', options: { timeout_ms: 600_000 } }, undefined, {
        signal: cancel.signal,
      })
      .finally(() => {
        spun = true;
      });
    expect(await value({ code: '"quick"' })).toBe('quick');
    // Ordering, not timing: the quick one answered while the other still spun.
    expect(spun).toBe(false);
    cancel.abort('cancelled by the test');
    expect((await spinning).envelope).toEqual({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by the test' },
    });
  });
});

describe('serialization', () => {
  it.each([
    ['({fn: function() { return 42; }})', 'value.fn is a function'],
    ['var a = {}; a.self = a; a', 'value.self is a circular reference'],
    ['({items: [1, 2, 3, {fn() {}}]})', 'value.items[3].fn is a function'],
    ['({d: new Date(0)})', 'value.d is a Date'],
    ['({n: 10n})', 'value.n is a BigInt'],
  ])('%s is SERIALIZATION_ERROR naming %s', async (code, path) => {
    const e = await error({ code });
    expect(e.code).toBe('SERIALIZATION_ERROR');
    // The API reference's message, verbatim; the path is in the stack.
    expect(e.message).toBe(
      'Result contains non-JSON-serializable values (functions, circular references, etc.)',
    );
    expect(e.stack).toContain(path);
  });
});

describe('structured result', () => {
  it('records every call with server, tool, ok and duration', async () => {
    const result = await run({
      code: "call_tool('fixture','echo',{}); call_tool('fixture','fail',{}); 1",
    });
    expect(result.toolCalls.map(({ server, tool, ok }) => ({ server, tool, ok }))).toEqual([
      { server: 'fixture', tool: 'echo', ok: true },
      { server: 'fixture', tool: 'fail', ok: false },
    ]);
    expect(result.stats.tool_calls).toBe(2);
    expect(typeof result.toolCalls[0]!.duration_ms).toBe('number');
  });
});
