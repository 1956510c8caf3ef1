import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobBridge } from './executor.ts';
import { type PoolOptions, SandboxPool } from './pool.ts';
import type { JobOutcome } from './protocol.ts';

// Real worker threads: one worker, so every run lands on the same restored instance.
const MB = 1_048_576;
const bridge: JobBridge = {
  call: async (json) => ({ envelope: { ok: true, result: JSON.parse(json) } }),
  batch: async () => ({ envelope: [] }),
  log: () => {},
};

function runner(pool: SandboxPool, memoryLimitBytes: number) {
  return (code: string, timeoutMs = 5000, hide?: string[]): Promise<JobOutcome> =>
    pool.run(
      {
        code,
        filename: 'code.js',
        globalsJson: JSON.stringify({ input: {} }),
        memoryLimitBytes,
        ...(hide ? { hide } : {}),
        limits: {
          deadlineMs: Date.now() + timeoutMs,
          maxOutputBytes: MB,
          maxLogLines: 128,
          maxLogLineBytes: 4096,
        },
      },
      bridge,
    );
}

async function startPool(options: Partial<PoolOptions> = {}): Promise<SandboxPool> {
  const pool = new SandboxPool({ size: 1, warm: 1, memoryLimitBytes: 64 * MB, ...options });
  await pool.start();
  return pool;
}

describe('a worker that restores its instance after each run', () => {
  let pool: SandboxPool;
  let run: ReturnType<typeof runner>;
  beforeAll(async () => {
    pool = await startPool();
    run = runner(pool, 64 * MB);
  });
  afterAll(async () => {
    await pool.stop();
  });

  it('passed its self-test', () => {
    expect(pool.engineModes()).toEqual(['restore']);
  });

  // [what the previous run did, its program, what the next run checks (must be true)]
  it.each([
    ['set a global', 'globalThis.leak = 1', "typeof leak === 'undefined'"],
    ['declared a top-level let', 'let shadow = 1; shadow', "typeof shadow === 'undefined'"],
    ['changed a prototype', 'Object.prototype.polluted = 1', "!('polluted' in {})"],
    ['replaced a builtin', 'JSON.stringify = () => "x"', 'JSON.stringify([1]) === "[1]"'],
    ['froze a prototype', 'Object.freeze(Array.prototype)', '!Object.isFrozen(Array.prototype)'],
    ['deleted call_tool', 'delete globalThis.call_tool', "call_tool('s', 't', {a: 1}).ok === true"],
    ['deleted console', 'delete globalThis.console', "typeof console.log === 'function'"],
    ['wrapped console.log', 'console.log = () => { throw 1 }', '(console.log("x"), true)'],
    ['timed out', 'while (true) {}', 'true'],
    ['overflowed its stack', '(function f() { return f() + 1 })()', 'true'],
    ['hit the memory cap', 'let a = []; while (true) a.push(new Array(1e5).fill(1))', 'true'],
    ['ran out of memory in a string', "'x'.repeat(2 ** 29)", 'true'],
    ['left a promise pending', "tools['a.b']({}); new Promise(() => {})", 'true'],
    [
      'used Intl',
      "Intl.NumberFormat('en-US', {style: 'currency', currency: 'USD'}).format(1234.5)",
      "Intl.NumberFormat('en-US').format(1234.5) === '1,234.5' && (5).toLocaleString() === '5'",
    ],
    [
      'replaced Intl.NumberFormat',
      'Intl.NumberFormat = null; Number.prototype.toLocaleString = null',
      "typeof Intl.NumberFormat === 'function' && (1234).toLocaleString('en-US') === '1,234'",
    ],
  ])('a run after one that %s is correct', async (_what, previous, check) => {
    await run(previous, 300);
    const after = await run(`${check} && call_tool('s', 't', {}).ok && 40 + 2`);
    expect(after).toEqual({ ok: true, valueJson: '42' });
  });

  it('a dialect that hides call_tool does not hide it from the next run', async () => {
    expect(
      await run("typeof call_tool + ' ' + typeof call_tools", 1000, ['call_tool', 'call_tools']),
    ).toEqual({
      ok: true,
      valueJson: '"undefined undefined"',
    });
    expect(await run("typeof call_tool + ' ' + typeof call_tools")).toEqual({
      ok: true,
      valueJson: '"function function"',
    });
  });

  it('gives Math.random a new seed for every run', async () => {
    const values = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const outcome = await run('[Math.random(), Math.random()]');
      if (outcome.ok) values.add(outcome.valueJson);
    }
    expect(values.size).toBe(5);
  });

  it('keeps the full recursion limit (the self-test overflowed a lower one)', async () => {
    expect(await run('(function f(n) { return n === 0 ? 0 : 1 + f(n - 1) })(5000)')).toEqual({
      ok: true,
      valueJson: '5000',
    });
  });

  it('reports the failures themselves as before', async () => {
    expect(await run('while (true) {}', 100)).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT' },
    });
    expect(await run('(function f() { return f() + 1 })()')).toMatchObject({
      ok: false,
      error: { code: 'RUNTIME_ERROR' },
    });
    expect(await run('let a = []; while (true) a.push(new Array(1e5).fill(1))')).toMatchObject({
      ok: false,
      error: { code: 'MEMORY_LIMIT_EXCEEDED' },
    });
  });
});

describe('the memory cap of a grown and restored instance', () => {
  let pool: SandboxPool;
  let run: ReturnType<typeof runner>;
  // A cap this small never lets memory grow to twice the snapshot, so the instance is restored.
  const CAP = 16 * MB;
  beforeAll(async () => {
    pool = await startPool({ memoryLimitBytes: CAP });
    run = runner(pool, CAP);
  });
  afterAll(async () => {
    await pool.stop();
  });

  it('is judged on what the run used, not on the memory left grown', async () => {
    // `throw null` leaves nothing to describe: only a full heap makes it a memory error.
    expect(await run('throw null')).toMatchObject({ ok: false, error: { code: 'RUNTIME_ERROR' } });
    expect(await run("const s = 'y'.repeat(10 * 1048576); s.length")).toEqual({
      ok: true,
      valueJson: String(10 * MB),
    });
    expect(await run('let a = []; while (true) a.push(new Array(1e5).fill(1))')).toMatchObject({
      ok: false,
      error: { code: 'MEMORY_LIMIT_EXCEEDED' },
    });
    expect(await run('throw null')).toMatchObject({ ok: false, error: { code: 'RUNTIME_ERROR' } });
    expect(await run("'z'.repeat(10 * 1048576).length")).toEqual({
      ok: true,
      valueJson: String(10 * MB),
    });
    expect(await run("'z'.repeat(20 * 1048576).length")).toMatchObject({
      ok: false,
      error: { code: 'MEMORY_LIMIT_EXCEEDED' },
    });
  });
});

describe('a worker whose restore fails its self-test', () => {
  it('warns and runs every execution on a fresh instance', async () => {
    const warnings: string[] = [];
    const pool = await startPool({
      engine: { restoreFault: 'skip-heap', onWarning: (m) => warnings.push(m) },
    });
    try {
      const run = runner(pool, 64 * MB);
      expect(await run('globalThis.leak = 1; 1')).toEqual({ ok: true, valueJson: '1' });
      expect(await run("typeof leak === 'undefined' && call_tool('s', 't').ok")).toEqual({
        ok: true,
        valueJson: 'true',
      });
      expect(pool.engineModes()).toEqual(['fresh']);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/fresh instances: snapshot self-test failed: memory differs/);
    } finally {
      await pool.stop();
    }
  });
});
