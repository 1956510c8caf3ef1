import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobBridge, RunClock } from './executor.ts';
import { SandboxPool } from './pool.ts';
import type { CallRequest, JobOutcome } from './protocol.ts';

const MB = 1_048_576;
/** The run's own timeout: ample to reach its calls on a loaded machine, well short of the holds. */
const TIMEOUT_MS = 800;
const HOLD_MS = 2_000;
const RELAXED_DEADLINE_MS = 60_000;
// A call that holds the clock past TIMEOUT_MS on purpose: the stopped clock is the thing tested.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A bridge whose every call holds the run's clock until `args.holdMs` passed, or `gate` opens. */
function holdingBridge(gate?: Promise<void>, onHold?: () => void) {
  let clock: RunClock | undefined;
  const logs: string[] = [];
  const bridge: JobBridge = {
    bindClock: (bound) => {
      clock = bound;
    },
    call: async (json) => {
      const { args } = JSON.parse(json) as CallRequest;
      const release = clock!.hold();
      onHold?.();
      try {
        await (typeof args.holdMs === 'number' ? sleep(args.holdMs) : gate);
      } finally {
        release();
        release();
      }
      return { envelope: { ok: true, result: args.v ?? null } };
    },
    batch: async () => ({ envelope: [] }),
    log: (_level, line) => logs.push(line),
  };
  return { bridge, logs };
}

/** A gate the test opens. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

function run(
  pool: SandboxPool,
  code: string,
  bridge: JobBridge,
  timeoutMs = TIMEOUT_MS,
): Promise<JobOutcome> {
  return pool.run(
    {
      code,
      filename: 'code.js',
      globalsJson: '{}',
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

function resultOf(outcome: JobOutcome): unknown {
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return JSON.parse(outcome.valueJson);
}

describe('a held clock', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = new SandboxPool({ size: 2, warm: 2, memoryLimitBytes: 64 * MB });
    await pool.start();
  });
  afterAll(async () => {
    await pool.stop();
  });

  it('lets a sync call_tool wait past the timeout and returns its reply', async () => {
    const { bridge } = holdingBridge();
    const outcome = await run(
      pool,
      `call_tool('s', 't', { holdMs: ${HOLD_MS}, v: 7 }).result`,
      bridge,
    );
    expect(resultOf(outcome)).toBe(7);
  });

  it('lets an awaited tools.* call wait past the timeout', async () => {
    const { bridge } = holdingBridge();
    const outcome = await run(
      pool,
      `const r = await tools.s.t({ holdMs: ${HOLD_MS}, v: 'late' }); r.result`,
      bridge,
    );
    expect(resultOf(outcome)).toBe('late');
  });

  it('still interrupts guest compute while a call is held', async () => {
    const held = gate();
    const { bridge } = holdingBridge(held.opened);
    // The hold ends only after the run did: the run must end by itself, at its own deadline.
    const outcome = await run(pool, `tools.s.t({}); while (true) {}`, bridge);
    held.open();
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('applies the time left after the release', async () => {
    const { bridge, logs } = holdingBridge();
    const outcome = await run(
      pool,
      `call_tool('s', 't', { holdMs: ${HOLD_MS} }); console.log('replied'); while (true) {}`,
      bridge,
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(logs).toEqual(['replied']);
  });

  it('stays stopped until the last of overlapping holds ends', async () => {
    // Were the clock to restart at the first release, the deadline would pass before the second.
    const { bridge } = holdingBridge();
    const outcome = await run(
      pool,
      `const rs = await Promise.all([
        tools.s.t({ holdMs: ${HOLD_MS * 0.7}, v: 1 }),
        tools.s.t({ holdMs: ${HOLD_MS * 1.4}, v: 2 }),
      ]);
      rs.map((r) => r.result)`,
      bridge,
    );
    expect(resultOf(outcome)).toEqual([1, 2]);
  });
});

describe('a pool whose worker is held', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = new SandboxPool({ size: 1, warm: 1, memoryLimitBytes: 64 * MB });
    await pool.start();
  });
  afterAll(async () => {
    await pool.stop();
  });

  it('runs another execution meanwhile, then shrinks back to its size', async () => {
    const held = gate();
    let holding = () => {};
    const holds = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const { bridge } = holdingBridge(held.opened, holding);
    const first = run(pool, `call_tool('s', 't', { v: 'approved' }).result`, bridge);
    await holds;
    // The one worker waits for a decision: a second execution must not wait for it.
    const second = await run(pool, '40 + 2', holdingBridge().bridge, RELAXED_DEADLINE_MS);
    expect(resultOf(second)).toBe(42);
    held.open();
    expect(resultOf(await first)).toBe('approved');
    expect(pool.engineModes()).toHaveLength(1);
  });
});
