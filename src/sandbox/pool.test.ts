import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobBridge } from './executor.ts';
import { SandboxPool } from './pool.ts';
import type { JobOutcome } from './protocol.ts';

const MB = 1_048_576;
let pool: SandboxPool;
const bridge: JobBridge = {
  call: async (json) => ({ envelope: { ok: true, result: JSON.parse(json) } }),
  batch: async () => ({ envelope: [] }),
  log: () => {},
};

beforeAll(async () => {
  pool = new SandboxPool({ size: 2, warm: 1, memoryLimitBytes: 64 * MB });
  await pool.start();
});
afterAll(async () => {
  await pool.stop();
});

/** Generous: a loaded machine (load average 10 on 2 cores) must not turn `40 + 2` into a TIMEOUT. */
const RELAXED_DEADLINE_MS = 60_000;

function run(code: string, timeoutMs = RELAXED_DEADLINE_MS): Promise<JobOutcome> {
  return pool.run(
    {
      code,
      filename: 'code.js',
      globalsJson: JSON.stringify({ input: { a: 1 } }),
      memoryLimitBytes: 64 * MB,
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

async function value(code: string): Promise<unknown> {
  const outcome = await run(code);
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return JSON.parse(outcome.valueJson);
}

// The ECMAScript globals QuickJS provides, and the documented codemux names.
const STANDARD = new Set(
  'Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date Promise RegExp Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError globalThis JSON Math Reflect Proxy Map Set WeakMap WeakSet WeakRef FinalizationRegistry ArrayBuffer SharedArrayBuffer Atomics DataView Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array BigInt64Array BigUint64Array Float16Array Float32Array Float64Array BigInt eval isNaN isFinite decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape Iterator'.split(
    ' ',
  ),
);
const DOCUMENTED = ['input', 'call_tool', 'call_tools', 'tools', 'catalog', 'console', 'Intl'];

describe('sandbox isolation', () => {
  it('globalThis holds only standard builtins and the documented names', async () => {
    const names = (await value('Object.getOwnPropertyNames(globalThis)')) as string[];
    const extra = names.filter((n) => !STANDARD.has(n) && !DOCUMENTED.includes(n));
    expect(extra).toEqual([]);
    for (const name of DOCUMENTED) expect(names).toContain(name);
  });
  it.each([
    'require',
    'process',
    'fetch',
    'setTimeout',
    'setInterval',
    'Buffer',
    'module',
    '__codemux_host__',
  ])('%s is not defined', async (name) => {
    expect(await value(`typeof ${name}`)).toBe('undefined');
  });
  it('the Function constructor reaches only the guest realm', async () => {
    expect(await value('typeof Function("return this")().process')).toBe('undefined');
    expect(await value('typeof call_tool.constructor("return typeof require")()')).toBe('string');
    expect(await value('call_tool.constructor("return typeof require")()')).toBe('undefined');
  });
  it('host-provided values have guest prototypes', async () => {
    expect(await value('Object.getPrototypeOf(call_tool) === Function.prototype')).toBe(true);
    expect(await value('Object.getPrototypeOf(input) === Object.prototype')).toBe(true);
    expect(await value('Object.getPrototypeOf(call_tool("a","b",{})) === Object.prototype')).toBe(
      true,
    );
    expect(await value('Object.getPrototypeOf(console.log) === Function.prototype')).toBe(true);
    expect(
      await value(
        'call_tool.toString().includes("[native code]") || call_tool.toString().length > 0',
      ),
    ).toBe(true);
  });
  it('import is not available', async () => {
    const outcome = await run('import("fs")');
    expect(outcome.ok).toBe(false);
  });
  it('supports ES2023 as QuickJS provides it', async () => {
    expect(
      await value(
        'class A { #x = 1; get x() { return this.#x } }; let o = {}; o.a ??= 2; [new A().x, [1,2,3].at(-1), Object.hasOwn(o, "a"), String(2n ** 64n)]',
      ),
    ).toEqual([1, 3, true, '18446744073709551616']);
  });
});

describe('worker pool', () => {
  it('replaces a worker the watchdog terminated', async () => {
    const stuck = await run('"ab".repeat(3e7).split("").join("-").length', 50);
    expect(stuck).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await value('40 + 2')).toBe(42);
  });
  it('queues beyond its size and runs everything', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => value(`${i} * 2`)));
    expect(results).toEqual([0, 2, 4, 6, 8, 10]);
  });
});
