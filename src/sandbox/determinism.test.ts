import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobBridge } from './executor.ts';
import { SandboxPool } from './pool.ts';
import type { JobOutcome, JobSpec } from './protocol.ts';
import { decodeReadings } from './worker/guest-clock.ts';

// Real worker threads: one worker a pool, so runs follow each other on one instance (restored) or its stock.
const MB = 1_048_576;

type Event = { readings: number[] } | { call: unknown } | { log: string };

/** A bridge that answers every call with its arguments and records what reached it, in order. */
function recorder(): { bridge: JobBridge; events: Event[]; clock: () => number[] } {
  const events: Event[] = [];
  const bridge: JobBridge = {
    call: async (json, dialect) => {
      const request = JSON.parse(json);
      events.push({ call: dialect === 'catalog' ? request.op : request.args });
      return { envelope: { ok: true, result: request.args ?? null } };
    },
    batch: async () => ({ envelope: [] }),
    log: (_level, line) => events.push({ log: line }),
    readings: (clock) => events.push({ readings: [...clock] }),
  };
  const clock = () => decodeReadings(events.flatMap((e) => ('readings' in e ? e.readings : [])));
  return { bridge, events, clock };
}

// Restored instances and fresh ones (the fallback when the self-test fails) alike.
describe.each([
  ['restore', {}],
  ['fresh', { engine: { restoreFault: 'skip-heap' as const, onWarning: () => {} } }],
] as const)('determinism in the sandbox, %s instances', (mode, options) => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = new SandboxPool({ size: 1, warm: 1, memoryLimitBytes: 64 * MB, ...options });
    await pool.start();
    expect(pool.engineModes()).toEqual([mode]);
  });
  afterAll(async () => {
    await pool.stop();
  });

  async function run(
    code: string,
    extra: Partial<JobSpec> = {},
    bridge: JobBridge = recorder().bridge,
  ): Promise<unknown> {
    const outcome: JobOutcome = await pool.run(
      {
        code,
        filename: 'code.js',
        globalsJson: '{}',
        memoryLimitBytes: 64 * MB,
        limits: {
          deadlineMs: Date.now() + 10_000,
          maxOutputBytes: 4 * MB,
          maxLogLines: 128,
          maxLogLineBytes: 4096,
        },
        ...extra,
      },
      bridge,
    );
    if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    return JSON.parse(outcome.valueJson);
  }

  const SEQUENCE = 'Array.from({ length: 8 }, () => Math.random())';

  it('gives the same Math.random sequence for the same seed, another for another seed', async () => {
    const first = await run(SEQUENCE, { seed: 'run-1' });
    const other = await run(SEQUENCE, { seed: 'run-2' });
    const again = await run(SEQUENCE, { seed: 'run-1' });
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    // The seed's text is what counts.
    expect(await run(SEQUENCE, { seed: 42 })).toEqual(await run(SEQUENCE, { seed: '42' }));
    // It looks like the native one.
    expect(await run('[Math.random.name, Math.random.length, "prototype" in Math.random]')).toEqual(
      ['random', 0, false],
    );
    // Without a seed every run gets a new one.
    expect(await run(SEQUENCE)).not.toEqual(await run(SEQUENCE));
  });

  it('is xoshiro128** seeded with SHA-256 of the seed, 53 bits a number', async () => {
    const bytes = createHash('sha256').update('reference').digest();
    const s = Array.from({ length: 4 }, (_, i) => bytes.readInt32LE(4 * i));
    const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
    const next = () => {
      const result = Math.imul(rotl(Math.imul(s[1]!, 5), 7), 9) >>> 0;
      const t = s[1]! << 9;
      s[2]! ^= s[0]!;
      s[3]! ^= s[1]!;
      s[1]! ^= s[2]!;
      s[0]! ^= s[3]!;
      s[2]! ^= t;
      s[3] = rotl(s[3]!, 11);
      return result;
    };
    const expected = Array.from(
      { length: 8 },
      () => ((next() >>> 5) * 67_108_864 + (next() >>> 6)) / 2 ** 53,
    );
    expect(await run(SEQUENCE, { seed: 'reference' })).toEqual(expected);
  });

  it('spreads Math.random evenly over [0, 1)', async () => {
    // 100,000 numbers in 20 buckets: chi-square (19 degrees of freedom) far below 43.8 (p = 0.001).
    const stats = (await run(
      `const n = 100000, buckets = new Array(20).fill(0); let min = 1, max = 0, sum = 0, odd = 0;
       for (let i = 0; i < n; i++) {
         const x = Math.random();
         buckets[Math.floor(x * 20)]++; min = Math.min(min, x); max = Math.max(max, x); sum += x;
         if ((x * 2 ** 53) % 2 === 1) odd++;
       }
       const e = n / 20;
       ({ chi: buckets.reduce((c, b) => c + (b - e) ** 2 / e, 0), min, max, mean: sum / n, odd })`,
      { seed: 'distribution' },
    )) as { chi: number; min: number; max: number; mean: number; odd: number };
    expect(stats.chi).toBeLessThan(43.8);
    expect(stats.min).toBeGreaterThanOrEqual(0);
    expect(stats.max).toBeLessThan(1);
    expect(Math.abs(stats.mean - 0.5)).toBeLessThan(0.005);
    // The lowest of the 53 bits is set in about half the numbers.
    expect(stats.odd).toBeGreaterThan(45_000);
    expect(stats.odd).toBeLessThan(55_000);
  });

  const BRANCHING = `
    const now = Date.now();
    const iso = new Date().toISOString();
    const text = Date();
    const coin = Math.random() < 0.5 ? 'heads' : 'tails';
    const echoed = call_tool('s', 't', { now, coin }).result;
    const later = Date.now();
    ({ now, iso, text, coin, echoed, later, fixed: new Date(2020, 0, 1).getTime(), parsed: Date.parse('2021-05-06T07:08:09Z') })`;

  it('replays the recorded clock and seed: the same readings, dates and branch', async () => {
    const original = recorder();
    const first = (await run(BRANCHING, { seed: 'replayed' }, original.bridge)) as Record<
      string,
      unknown
    >;
    // Four readings: Date.now(), new Date(), Date() and the later Date.now(); a fixed or parsed date takes none.
    const clock = original.clock();
    expect(clock).toHaveLength(4);
    expect(first.now).toBe(clock[0]);
    expect(first.iso).toBe(new Date(clock[1]!).toISOString());
    expect(first.later).toBe(clock[3]);

    const replay = recorder();
    const again = await run(BRANCHING, { seed: 'replayed', replay: { clock } }, replay.bridge);
    expect(again).toEqual(first);
    // Nothing was read live, so nothing new reached the bridge.
    expect(replay.clock()).toEqual([]);
  });

  it('answers readings from the replay list, not the clock, and goes on live after it', async () => {
    const started = Date.now();
    const replay = recorder();
    const value = (await run(
      `[Date.now(), new Date().toISOString(), String(new Date().getTime()), Date.now(), Date.now()]`,
      { replay: { clock: [0, 86_400_000, 1_000] } },
      replay.bridge,
    )) as [number, string, string, number, number];
    expect(value.slice(0, 3)).toEqual([0, '1970-01-02T00:00:00.000Z', '1000']);
    const live = value.slice(3) as number[];
    for (const reading of live) expect(reading).toBeGreaterThanOrEqual(started);
    expect(live[1]).toBeGreaterThanOrEqual(live[0]!);
    expect(replay.clock()).toEqual(live);
  });

  it('hands the bridge each run of readings before the call, log line or outcome after them', async () => {
    const { bridge, events } = recorder();
    await run(
      `const a = Date.now();
       call_tool('s', 't', { a });
       const b = Date.now(), c = Date.now();
       await tools.s.t({ b, c });
       await catalog.tools.list();
       const d = Date.now();
       console.log(String(d));
       const e = Date.now();
       1`,
      {},
      bridge,
    );
    expect(events.map((e) => Object.keys(e)[0])).toEqual([
      'readings',
      'call',
      'readings',
      'call',
      'call',
      'readings',
      'log',
      'readings',
    ]);
    const [ra, ca, rbc, cbc, catalogOp, rd, logD, re] = events as Array<Record<string, unknown>>;
    expect(ca!.call).toEqual({ a: (ra!.readings as number[])[0] });
    const [b, c] = decodeReadings(rbc!.readings as number[]);
    expect(cbc!.call).toEqual({ b, c });
    expect(catalogOp!.call).toBe('tools.list');
    expect(logD!.log).toBe(String((rd!.readings as number[])[0]));
    expect(re!.readings).toHaveLength(1);
    expect((re!.readings as number[])[0]).toBeGreaterThanOrEqual(c!);
  });

  it('ends the run with EXECUTION_FAILED when the bridge cannot take the readings', async () => {
    const bridge: JobBridge = {
      ...recorder().bridge,
      readings: () => {
        throw new Error('the journal is down');
      },
    };
    const outcome = await pool.run(
      {
        code: `Date.now(); call_tool('s', 't', {}); 1`,
        filename: 'code.js',
        globalsJson: '{}',
        memoryLimitBytes: 64 * MB,
        limits: {
          deadlineMs: Date.now() + 10_000,
          maxOutputBytes: MB,
          maxLogLines: 128,
          maxLogLineBytes: 4096,
        },
      },
      bridge,
    );
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'EXECUTION_FAILED',
        message: "recording the run's clock readings failed: Error: the journal is down",
      },
    });
    expect(await run('40 + 2')).toBe(42);
  });

  it('hands the bridge no readings when the program reads no clock', async () => {
    const { bridge, events } = recorder();
    await run(`call_tool('s', 't', {}); console.log('x'); Math.random(); 1`, {}, bridge);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['call', 'log']);
  });
});
