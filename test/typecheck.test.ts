/**
 * Type-checked programs (DESIGN.md, "Type-checked programs") against the real reference
 * servers: realistic correct programs get no diagnostics, real mistakes get one each at the
 * caller's own line and column, `error` runs nothing, `warn` runs and lists them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config/index.ts';
import { createRuntime, type Runtime } from '../src/execution/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { MODULES, ROOT, SERVERS, settle } from './helpers.ts';
import { SPEC_EXAMPLES } from './spec-examples.ts';

let runtime: Runtime;
const files = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-typecheck-'));
fs.writeFileSync(path.join(files, 'notes.txt'), 'first line\nsecond line\n');

beforeAll(async () => {
  const config = resolveConfig(
    {
      mcpServers: [
        SERVERS.everything,
        { ...SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(files, 'memory.jsonl') } },
        {
          name: 'filesystem',
          command: process.execPath,
          args: [path.join(MODULES, 'server-filesystem', 'dist', 'index.js'), files],
        },
      ],
    },
    { baseDir: ROOT },
  );
  runtime = createRuntime(config, silentLogger(), { live: true, warmWorkers: 2 });
  await runtime.start();
  await settle(
    async () => runtime.registry.status(),
    (all) => all.every((s) => s.state === 'ready'),
    15_000,
    50,
  );
}, 60_000);

afterAll(async () => {
  await runtime.stop();
  fs.rmSync(files, { recursive: true, force: true });
});

type Options = Record<string, unknown>;

function run(code: string, options: Options = {}, language = 'typescript', input = {}) {
  return runtime.service.execute({ code, language, input, options });
}

/** Realistic correct programs, as an agent writes them: none may get a diagnostic. */
const CORRECT: Array<[string, string]> = [
  [
    'call_tool with narrowing on ok',
    `const r = call_tool('everything', 'echo', { message: 'hi' });
if (!r.ok) return { failed: r.error.code + ': ' + r.error.message };
return r.result.content[0].text;`,
  ],
  [
    'call_tools over a mapped list',
    `const names = ['a', 'b', 'c'];
const slots = call_tools(names.map((n) => ({ server: 'everything', tool: 'echo', args: { message: n } })), { max_parallel: 2 });
const texts: string[] = slots.map((s) => (s.ok ? s.result.content[0].text : 'ERR ' + s.error.code));
texts;`,
  ],
  [
    'call_tools with literal requests',
    `const [sum, echo] = call_tools([
  { server: 'everything', tool: 'get-sum', args: { a: 1, b: 2 } },
  { server: 'everything', tool: 'echo', args: { message: 'x' } },
]);
({ sum: sum.ok && sum.result.content[0].text, echo: echo.ok });`,
  ],
  [
    'tools.* with await and data',
    `const listed = await tools.filesystem.list_allowed_directories({});
if (!listed.ok) throw new Error(listed.error.message);
const file = await tools.filesystem.read_text_file({ path: ${JSON.stringify(path.join(files, 'notes.txt'))}, head: 1 });
return { dirs: String(listed.data).length > 0, first: file.ok ? file.data : file.error.message };`,
  ],
  [
    'tools["server.tool"] and a loop with a dynamic tool name',
    `const out: Record<string, boolean> = {};
for (const tool of ['echo', 'get-sum']) {
  const r = call_tool('everything', tool, tool === 'echo' ? { message: 'm' } : { a: 1, b: 1 });
  out[tool] = r.ok;
}
const g = await tools['memory.read_graph']({});
out.graph = g.ok;
out;`,
  ],
  [
    'server and tool names from input',
    `const r = call_tool(input.server, input.tool, input.args ?? {});
r.ok;`,
  ],
  [
    'catalog discovery',
    `const found = await catalog.tools.search({ query: 'echo' });
const items = found.ok ? found.data.items.map((i) => i.qualifiedName) : [];
const d = await catalog.tools.describe({ namespace: 'everything', name: 'echo' });
const ns = await catalog.namespaces.list();
({ items, sig: d.ok ? d.data.typescript.length > 0 : false, n: ns.ok ? ns.data.total : 0 });`,
  ],
  [
    'helpers, classes, generics, JSON and dates',
    `interface Row { id: number; name: string; tags?: string[] }
class Counter { private n = 0; add(k = 1) { this.n += k; return this; } get value() { return this.n; } }
function byId<T extends { id: number }>(rows: T[]): Map<number, T> { return new Map(rows.map((r) => [r.id, r])); }
const rows: Row[] = JSON.parse('[{"id":1,"name":"a"},{"id":2,"name":"b","tags":["x"]}]');
const map = byId(rows);
const c = new Counter().add().add(2);
var name = 'legal without the DOM';
const when = new Date(0).toISOString();
console.log('rows', rows.length, name);
return { size: map.size, count: c.value, when, last: rows.at(-1)?.tags ?? [], has: Object.hasOwn(rows[0], 'id') };`,
  ],
  [
    'try/catch, async helpers, Promise.all over tools',
    `async function echo(message: string) {
  const r = await tools.everything.echo({ message });
  return r.ok ? r.data : null;
}
try {
  const all = await Promise.all(['x', 'y'].map(echo));
  return all;
} catch (e) {
  return e.message;
}`,
  ],
  [
    'memory server with typed entities',
    `await tools.memory.create_entities({ entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote notes'] }] });
const graph = await tools.memory.read_graph({});
const count = graph.ok ? (graph.data.entities ?? []).length : -1;
count;`,
  ],
  [
    'newer builtins the engine has, declare at the top level, globalThis',
    `declare const hint: string | undefined;
const rows = [{ k: 'a', n: 1 }, { k: 'b', n: 2 }, { k: 'a', n: 3 }];
const grouped = Object.groupBy(rows, (r) => r.k);
const { promise, resolve } = Promise.withResolvers<number>();
resolve(1);
const both = new Set([1, 2]).union(new Set([3]));
const seen = globalThis.input ? Object.keys(globalThis.input).length : 0;
const doubled = new Map([['x', 1]]).values().map((n) => n * 2).toArray();
({ a: grouped.a?.length, p: await promise, both: [...both], seen, doubled });`,
  ],
  [
    'a retry loop with a budget',
    `let attempt = 0;
let last: any = null;
while (attempt < 3) {
  attempt++;
  last = call_tool('everything', 'echo', { message: 'try ' + attempt });
  if (last.ok) break;
}
({ attempt, ok: last.ok });`,
  ],
];

describe('type-checked programs', () => {
  it.each(CORRECT)('%s: no diagnostics (typecheck "error" runs it)', async (_name, code) => {
    const result = await run(code, { typecheck: 'error' }, 'typescript', {
      server: 'everything',
      tool: 'echo',
      args: { message: 'in' },
    });
    expect(result.envelope.diagnostics).toBeUndefined();
    expect(result.envelope.ok, JSON.stringify(result.envelope)).toBe(true);
  });

  it("gives the reference documents' TypeScript examples no diagnostics", async () => {
    const typescript = SPEC_EXAMPLES.filter((e) => e.args.language === 'typescript');
    expect(typescript.length).toBeGreaterThan(1);
    for (const example of typescript) {
      const result = await runtime.service.execute({
        ...example.args,
        options: { ...example.args.options, typecheck: 'error' },
      });
      expect(result.envelope, example.name).not.toHaveProperty('diagnostics');
      expect(result.envelope.ok, example.name).toBe(true);
    }
  });

  /** A mistake, the message expected, and where it is (line, column) in the program as sent. */
  const MISTAKES: Array<[string, string, RegExp, number, number]> = [
    [
      'a misspelled server',
      `const r = call_tool('everythin', 'echo', { message: 'x' });\nr.ok;`,
      /^unknown server "everythin"; did you mean "everything"\?$/,
      1,
      21,
    ],
    [
      'a misspelled tool',
      `// look it up\nconst r = call_tool('everything', 'ecko', { message: 'x' });`,
      /^unknown tool "ecko" on server "everything"; did you mean "echo"\?$/,
      2,
      35,
    ],
    [
      'a misspelled tool through tools.*',
      `const r = await tools.filesystem.read_text_fil({ path: 'x' });`,
      /^unknown tool "read_text_fil" on server "filesystem"; did you mean "read_text_file"\?$/,
      1,
      34,
    ],
    [
      'a misspelled server through tools.*',
      `const r = await tools.memroy.read_graph({});`,
      /^unknown server "memroy"; did you mean "memory"\?$/,
      1,
      23,
    ],
    [
      'an unknown qualified name in brackets',
      `const r = await tools['everything.echoo']({ message: 'x' });`,
      /^unknown tool "echoo" on server "everything"; did you mean "echo"\?$/,
      1,
      23,
    ],
    [
      'a missing required argument',
      `const r = call_tool('everything', 'echo', {});`,
      /Property 'message' is missing/,
      1,
      43,
    ],
    [
      'an argument of the wrong type',
      `const r = await tools.everything['get-sum']({ a: 1, b: 'two' });`,
      /Type 'string' is not assignable to type 'number'/,
      1,
      53,
    ],
    [
      'an unknown argument',
      `const r = call_tool('everything', 'echo', { message: 'x', mesage: 'y' });`,
      /'mesage' does not exist/,
      1,
      59,
    ],
    [
      'a misused envelope',
      `const r = call_tool('everything', 'echo', { message: 'x' });\nreturn r.data;`,
      /^Property 'data' does not exist on type 'CallToolEnvelope'; call_tool and call_tools answer \{ok, result\}/,
      2,
      10,
    ],
    [
      'a misspelled tool in a call_tools batch',
      `call_tools([\n  { server: 'everything', tool: 'echo', args: { message: 'a' } },\n  { server: 'everything', tool: 'get_sum', args: { a: 1, b: 2 } },\n]);`,
      /^unknown tool "get_sum" on server "everything"; did you mean "get-sum"\?$/,
      3,
      33,
    ],
    [
      'an unknown argument in a call_tools batch',
      `call_tools([{ server: 'everything', tool: 'get-sum', args: { a: 1, b: 2, c: 3 } }]);`,
      /^unknown argument "c": it is not in the input schema of "everything.get-sum"$/,
      1,
      74,
    ],
    [
      'a misspelled tool in brackets on a server',
      `const r = await tools.everything['get_sum']({ a: 1, b: 2 });`,
      /^unknown tool "get_sum" on server "everything"; did you mean "get-sum"\?$/,
      1,
      34,
    ],
    [
      'a global the sandbox does not have',
      `const page = await fetch('https://example.com');`,
      /Cannot find name 'fetch'/,
      1,
      20,
    ],
  ];

  it.each(MISTAKES)(
    'catches %s, and under "error" nothing runs',
    async (_n, code, message, line, column) => {
      const result = await run(code, { typecheck: 'error' });
      expect(result.envelope.ok).toBe(false);
      if (result.envelope.ok) return;
      expect(result.envelope.error.code).toBe('TYPE_ERROR');
      expect(result.envelope.error).toMatchObject({ line, column });
      expect(result.toolCalls).toEqual([]);
      const [first] = result.envelope.diagnostics ?? [];
      expect(first).toMatchObject({ line, column });
      expect(first!.message).toMatch(message);
      expect(typeof first!.code).toBe('number');
    },
  );

  it('runs the program under "warn" and lists the diagnostics beside its value', async () => {
    const result = await run(
      `const a = call_tool('everything', 'echo', { message: 'ran' });\nconst b = call_tool('everything', 'ecko', {});\n[a.ok, b.ok];`,
      { typecheck: 'warn' },
    );
    expect(result.envelope).toMatchObject({ ok: true, value: [true, false] });
    expect(result.envelope.diagnostics).toEqual([
      {
        line: 2,
        column: 35,
        code: 2345,
        message: 'unknown tool "ecko" on server "everything"; did you mean "echo"?',
      },
    ]);
    expect(result.toolCalls.map((c) => c.tool)).toEqual(['echo', 'ecko']);
  });

  it('checks nothing under "off", and JavaScript only with // @ts-check', async () => {
    const bad = `const r = call_tool('everythin', 'echo', { message: 'x' });\nr.ok;`;
    expect((await run(bad, { typecheck: 'off' })).envelope).toEqual({ ok: true, value: false });
    expect((await run(bad, { typecheck: 'error' }, 'javascript')).envelope).toEqual({
      ok: true,
      value: false,
    });
    const checked = await run(`// @ts-check\n${bad}`, { typecheck: 'error' }, 'javascript');
    expect(checked.envelope).toMatchObject({
      ok: false,
      error: { code: 'TYPE_ERROR', line: 2, column: 21 },
    });
  });

  it('refuses an unknown mode with INVALID_OPTIONS naming the values', async () => {
    const result = await run('1', { typecheck: 'strict' });
    expect(result.envelope).toEqual({
      ok: false,
      error: {
        code: 'INVALID_OPTIONS',
        message: 'options.typecheck must be one of "off", "warn", "error" (got "strict")',
      },
    });
  });

  it('keeps scopes apart: allowed_servers ["*"] is not every server', async () => {
    const narrowed = await run(`call_tool('everything', 'echo', { message: 'x' });`, {
      typecheck: 'error',
      allowed_servers: ['*'],
    });
    expect(narrowed.envelope).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
    const whole = await run(`call_tool('everything', 'echo', { message: 'x' }).ok;`, {
      typecheck: 'error',
    });
    expect(whole.envelope).toEqual({ ok: true, value: true });
  });

  it('narrows the names to allowed_servers', async () => {
    const result = await run(`const r = call_tool('memory', 'read_graph', {});\nr.ok;`, {
      typecheck: 'error',
      allowed_servers: ['everything'],
    });
    expect(result.envelope).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
    if (result.envelope.ok) return;
    expect(result.envelope.error.message).toContain('unknown server "memory"');
  });

  it("fills execute's diagnostics (code mode) from the config's mode", async () => {
    const outcome = await runtime.execute.execute({
      code: `const r = await tools.everything.ecko({ message: 'x' });\nreturn r.ok;`,
    });
    expect(outcome.result.status).toBe('completed');
    expect(outcome.result.diagnostics).toEqual([
      {
        kind: 'TypeError',
        line: 1,
        column: 34,
        code: 2339,
        message: 'unknown tool "ecko" on server "everything"; did you mean "echo"?',
      },
    ]);
  });
});

describe('a check that is slower than the program, under warn', () => {
  it('does not hold the answer past warnWaitMs: the answer says it was abandoned', async () => {
    const quick = createRuntime(
      resolveConfig({ mcpServers: [] }, { baseDir: ROOT }),
      silentLogger(),
      {
        typecheck: { warnWaitMs: 1 },
      },
    );
    await quick.start();
    try {
      const result = await quick.service.execute({
        code: "const n: number = 'one';\n1",
        language: 'typescript',
      });
      expect(result.envelope).toEqual({
        ok: true,
        value: 1,
        diagnostics: [
          {
            line: 1,
            column: 1,
            code: 0,
            message: 'the type check was abandoned: it had not finished 1 ms after the program',
          },
        ],
      });
    } finally {
      await quick.stop();
    }
  });
});

describe('JavaScript-style programs in execute (issue 33, item 12)', () => {
  it('are checked with JavaScript semantics: only real mistakes are reported', async () => {
    const outcome = await runtime.execute.execute({
      code: [
        'const out = {};',
        'out.keys = 1;',
        "if (typeof leaked !== 'undefined') out.leaked = true;",
        "const r = await tools.everything.ecko({ message: 'x' });",
        'await tools.everything.echo({});',
        'return out;',
      ].join('\n'),
    });
    expect(outcome.result.status).toBe('completed');
    expect(outcome.result.result).toEqual({ keys: 1 });
    expect(outcome.result.diagnostics.map((d) => [d.line, d.code, d.message])).toEqual([
      [4, 2339, 'unknown tool "ecko" on server "everything"; did you mean "echo"?'],
      [5, 2345, expect.stringContaining("'message'")],
    ]);
  });

  it('keeps TypeScript semantics for a program with TypeScript syntax', async () => {
    const outcome = await runtime.execute.execute({
      code: [
        'const out: Record<string, unknown> = {};',
        'const empty = {};',
        'empty.keys = 1;',
        "if (typeof leaked !== 'undefined') out.leaked = true;",
        'return out;',
      ].join('\n'),
    });
    expect(outcome.result.status).toBe('completed');
    expect(outcome.result.diagnostics.map((d) => [d.line, d.code])).toEqual([
      [3, 2339],
      [4, 2304],
    ]);
  });
});

describe('a JavaScript program without // @ts-check (issue 37)', () => {
  it('pays nothing for type checking: no checker starts, no declarations are written', async () => {
    const plain = createRuntime(
      resolveConfig({ mcpServers: [], code_execution_typecheck: 'error' }, { baseDir: ROOT }),
      silentLogger(),
    );
    await plain.start();
    try {
      // A type error TypeScript would report (a number reassigned a string) that runs fine.
      const code = `let n = 1;\nn = 'one';\nn`;
      for (const typecheck of ['error', 'warn'] as const) {
        const result = await plain.service.execute({
          code,
          language: 'javascript',
          options: { typecheck },
        });
        expect(result.envelope).toEqual({ ok: true, value: 'one' });
      }
      // The worker (which writes the declarations and loads TypeScript) was never started.
      expect(plain.typecheck.started).toBe(false);
      const checked = await plain.service.execute({
        code: `// @ts-check\n${code}`,
        language: 'javascript',
      });
      expect(checked.envelope).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR', line: 3 } });
      expect(plain.typecheck.started).toBe(true);
    } finally {
      await plain.stop();
    }
  });
});

describe('a check that cannot start in time, under "error" (issue 33, item 5)', () => {
  it('fails the run with TYPE_ERROR naming the wait and the setting; nothing runs', async () => {
    const busy = createRuntime(
      resolveConfig(
        { mcpServers: [], code_execution_typecheck: 'error', code_execution_typecheck_wait_ms: 1 },
        { baseDir: ROOT },
      ),
      silentLogger(),
    );
    await busy.start();
    try {
      // The worker's start-up does not count against the wait: the first program is checked.
      const first = await busy.service.execute({
        code: 'const n: number = 1;\nn',
        language: 'typescript',
      });
      expect(first.envelope).toEqual({ ok: true, value: 1 });
      // Another caller floods the checker with long checks (under warn, which does not wait).
      const heavy = Array.from(
        { length: 400 },
        (_, i) => `const h${i}: Array<{ n: number }> = [1, 2, 3].map((n) => ({ n: n * ${i} }));`,
      ).join('\n');
      const flood = Array.from({ length: 3 }, () =>
        busy.service.execute({
          code: `${heavy}\n1`,
          language: 'typescript',
          options: { typecheck: 'warn' },
        }),
      );
      await settle(
        async () => busy.typecheck.running && busy.typecheck.waiting > 0,
        (queued) => queued,
        6_000,
        10,
      );
      expect(busy.typecheck.running && busy.typecheck.waiting > 0).toBe(true);
      const agent = { kind: 'agent' as const, name: 'b', servers: [] };
      const late = await busy.service.execute(
        { code: 'globalThis.ran = true;\n1', language: 'typescript' },
        agent,
      );
      expect(late.envelope).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
      if (late.envelope.ok) return;
      expect(late.envelope.error.message).toContain(
        'could not be type-checked (it could not start within 1 ms (code_execution_typecheck_wait_ms)',
      );
      expect(late.toolCalls).toEqual([]);
      for (const answer of await Promise.all(flood)) expect(answer.envelope.ok).toBe(true);
    } finally {
      await busy.stop();
    }
  });
});
