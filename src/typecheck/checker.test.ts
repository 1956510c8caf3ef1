import { afterEach, describe, expect, it } from 'vitest';
import { TYPECHECK_DEFAULTS, TypeChecker, typecheckWorkerUrl } from './index.ts';
import type { ScopeInput } from './protocol.ts';

const SCOPE: ScopeInput = {
  entries: [
    {
      namespace: 'demo',
      name: 'ping',
      qualifiedName: 'demo.ping',
      description: 'Ping',
      inputSchema: { type: 'object', properties: {} },
    },
  ],
  unknownServers: [],
  dialect: 'code_execution',
};

/** A program long enough that no check of it finishes within a millisecond. */
const PROGRAM = Array.from(
  { length: 200 },
  (_, i) => `const v${i}: Array<{ n: number }> = [1, 2, 3].map((n) => ({ n: n * ${i} }));`,
).join('\n');

let checker: TypeChecker | undefined;
afterEach(async () => {
  await checker?.stop();
  checker = undefined;
});

const check = (source: string, scopeKey = 'k') =>
  checker!.check({ scopeKey, scope: () => SCOPE, source, javascript: false });

describe('TypeChecker', () => {
  it('checks programs one at a time in a worker, and asks for a scope only once', async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    let asked = 0;
    const scope = () => {
      asked++;
      return SCOPE;
    };
    const results = await Promise.all(
      ['const a: number = 1;', 'const b: number = "x";', 'await tools.demo.pong();'].map((source) =>
        checker!.check({ scopeKey: 's', scope, source, javascript: false }),
      ),
    );
    expect(results.map((r) => r.diagnostics.map((d) => d.code))).toEqual([[], [2322], [2339]]);
    expect(asked).toBe(1);
  });

  it('abandons a check that runs past its time, and the next one still runs', async () => {
    checker = new TypeChecker(typecheckWorkerUrl(), { ...TYPECHECK_DEFAULTS, timeoutMs: 1 });
    const slow = await check(PROGRAM);
    expect(slow.abandoned).toBe('it ran longer than 1 ms');
    expect(slow.diagnostics).toEqual([
      {
        line: 1,
        column: 1,
        code: 0,
        message: 'the type check was abandoned: it ran longer than 1 ms',
      },
    ]);
    await checker.stop();
    checker = new TypeChecker(typecheckWorkerUrl());
    expect((await check('const ok: string = "yes";')).diagnostics).toEqual([]);
  });

  it('abandons checks when the worker runs out of memory, without harm to the host', async () => {
    checker = new TypeChecker(typecheckWorkerUrl(), {
      ...TYPECHECK_DEFAULTS,
      heapMb: 4,
      startupTimeoutMs: 20_000,
    });
    const first = await check('const a = 1;');
    expect(first.abandoned).toMatch(/could not start|stopped/);
    const second = await check('const b = 2;');
    expect(second.abandoned).toMatch(/could not start|stopped/);
  });

  it('refuses checks beyond its queue at once', async () => {
    checker = new TypeChecker(typecheckWorkerUrl(), { ...TYPECHECK_DEFAULTS, maxQueued: 2 });
    const [a, b, c] = await Promise.all([check('1;'), check('2;'), check('3;')]);
    expect(a!.abandoned).toBeUndefined();
    expect(b!.abandoned).toBeUndefined();
    expect(c!.abandoned).toBe('the type checker is busy (2 checks waiting)');
  });

  it('reports positions as the engine counts lines (\\n only), and keeps enum args apart from server names', async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    const scope: ScopeInput = {
      entries: [
        {
          namespace: 'k8s',
          name: 'deploy',
          qualifiedName: 'k8s.deploy',
          description: 'Deploy',
          inputSchema: {
            type: 'object',
            properties: { server: { type: 'string', enum: ['prd', 'stg'] } },
            required: ['server'],
          },
        },
      ],
      unknownServers: [],
      dialect: 'code_execution',
    };
    const found = await checker.check({
      scopeKey: 'k8s',
      scope: () => scope,
      source: "const s = 'a\u2028b';\ncall_tool('k8s', 'deploy', { server: 'prx' });",
      javascript: false,
    });
    expect(found.diagnostics).toHaveLength(1);
    expect(found.diagnostics[0]).toMatchObject({ line: 2, column: 30, code: 2322 });
    expect(found.diagnostics[0]!.message).toContain('\'"prd" | "stg"\'');
  });

  it('abandons a check whose scope cannot be written, and goes on', async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    const broken = await checker.check({
      scopeKey: 'broken',
      scope: () => {
        throw new Error('no entries');
      },
      source: '1;',
      javascript: false,
    });
    expect(broken.abandoned).toBe('its declarations failed: no entries');
    expect((await check('const fine: number = 1;')).diagnostics).toEqual([]);
  });
});

/** A check that keeps the worker busy far longer than a millisecond (hundreds of them). */
const HEAVY = Array.from(
  { length: 400 },
  (_, i) => `const h${i}: Array<{ n: number }> = [1, 2, 3].map((n) => ({ n: n * ${i} }));`,
).join('\n');

describe('TypeChecker: one queue per caller (issue 33, item 5)', () => {
  it("serves callers in turn: one caller's flood delays another's check by at most one check", async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    const done: string[] = [];
    const mark = (label: string, source: string, caller: string) =>
      checker!
        .check({ scopeKey: 'k', scope: () => SCOPE, source, javascript: false, caller })
        .then((r) => {
          expect(r.abandoned).toBeUndefined();
          done.push(label);
        });
    const flood = Array.from({ length: 6 }, (_, i) =>
      mark(`A${i}`, `const a${i} = ${i};`, 'token:a'),
    );
    const single = mark('B', 'const b = 1;', 'token:b');
    await Promise.all([...flood, single]);
    // The worker takes one check at a time, so the order of completion is the order served.
    expect(done.indexOf('B')).toBeLessThanOrEqual(1);
    expect(done.filter((l) => l.startsWith('A'))).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'A5']);
  });

  it('holds a full queue against its own caller only', async () => {
    checker = new TypeChecker(typecheckWorkerUrl(), { ...TYPECHECK_DEFAULTS, maxQueued: 2 });
    const of = (caller: string) =>
      checker!.check({
        scopeKey: 'k',
        scope: () => SCOPE,
        source: '1;',
        javascript: false,
        caller,
      });
    const [a1, a2, a3, b1] = await Promise.all([of('a'), of('a'), of('a'), of('b')]);
    expect([a1!.abandoned, a2!.abandoned, b1!.abandoned]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(a3!.abandoned).toBe('the type checker is busy (2 checks waiting)');
  });

  it('drops a waiting check whose answer was already sent, without checking it', async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    const done: string[] = [];
    const first = check(PROGRAM).then(() => done.push('first'));
    const answered = new AbortController();
    const dropped = checker
      .check({
        scopeKey: 'k',
        scope: () => SCOPE,
        source: 'const n: number = "x";',
        javascript: false,
        signal: answered.signal,
      })
      .then((r) => {
        done.push('dropped');
        return r;
      });
    answered.abort();
    expect((await dropped).abandoned).toBe('its answer was already sent');
    await first;
    // Dropped while the first was still being checked: it never reached the worker.
    expect(done).toEqual(['dropped', 'first']);
  });

  it('abandons a check that cannot start within its wait, naming the wait and the setting', async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    // The worker's start-up does not count: a lone check with a 1 ms wait is checked.
    const cold = await checker.check({
      scopeKey: 'k',
      scope: () => SCOPE,
      source: 'const n: number = "x";',
      javascript: false,
      waitMs: 1,
    });
    expect(cold.abandoned).toBeUndefined();
    expect(cold.diagnostics.map((d) => d.code)).toEqual([2322]);
    // Behind a check that keeps the worker busy far longer, a 1 ms wait must lapse.
    const heavy = checker.check({
      scopeKey: 'k',
      scope: () => SCOPE,
      source: HEAVY,
      javascript: false,
      caller: 'token:a',
    });
    const late = await checker.check({
      scopeKey: 'k',
      scope: () => SCOPE,
      source: '1;',
      javascript: false,
      caller: 'token:b',
      waitMs: 1,
    });
    expect(late.abandoned).toBe(
      'it could not start within 1 ms (code_execution_typecheck_wait_ms): the type checker was busy with 1 other check',
    );
    await heavy;
  });
});

describe('TypeChecker: JavaScript semantics (issue 33, item 12)', () => {
  it('checks a program of no stated language as JavaScript unless it has TypeScript syntax', async () => {
    checker = new TypeChecker(typecheckWorkerUrl());
    const codes = async (source: string, flags: { javascript?: boolean; detect?: boolean }) =>
      (
        await checker!.check({
          scopeKey: 'k',
          scope: () => SCOPE,
          source,
          javascript: flags.javascript ?? false,
          detectJavascript: flags.detect ?? false,
        })
      ).diagnostics.map((d) => d.code);
    const plain = "const out = {};\nout.keys = 1;\nif (typeof leaked === 'undefined') out.x = 2;";
    expect(await codes(plain, { detect: true })).toEqual([]);
    expect(await codes(`${plain}\nleaked;`, { detect: true })).toEqual([2304]);
    expect(await codes(`${plain}\nconst n: number = 1;`, { detect: true })).toEqual([
      2339, 2304, 2339,
    ]);
    expect(await codes(plain, { javascript: true })).toEqual([]);
    expect(await codes(plain, {})).toEqual([2339, 2304, 2339]);
  });
});
