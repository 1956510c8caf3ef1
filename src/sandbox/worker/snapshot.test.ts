import fs from 'node:fs';
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobOutcome, SIGNAL_BYTES, type WasmBuild } from '../protocol.ts';
import { inspectWasm } from '../wasm-facts.ts';
import { HostLink } from './host-link.ts';
import { type Layout, runtimeInternals } from './quickjs-internals.ts';
import { JobRun } from './run-job.ts';
import { setUpEngine } from './self-test.ts';
import { type Snapshot, STACK_SLACK_BYTES } from './snapshot.ts';

// The worker's modules driven in this thread, so a test can read the instance's linear memory.
const MB = 1_048_576;
const STACK_LIMIT_BYTES = MB;
const MARKER = 'codemux-marker-7f3a9';
const channel = new MessageChannel();
const link = new HostLink(channel.port2, new SharedArrayBuffer(SIGNAL_BYTES));
let wasm: WasmBuild;
let snapshot: Snapshot;
let layout: Layout;
let execId = 1;

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const bytes = fs.readFileSync(file);
  wasm = { module: await WebAssembly.compile(bytes), ...inspectWasm(bytes) };
  // The pinned build: the stack pointer is its one mutable global; its memory import takes 2 GiB.
  expect(wasm.mutableGlobals).toBe(1);
  expect(wasm.memoryMaxPages).toBe(32_768);
  const setup = await setUpEngine(wasm, 64 * MB, STACK_LIMIT_BYTES);
  if (setup.mode !== 'restore') throw new Error(`self-test failed: ${setup.reason}`);
  snapshot = setup.prepared;
  layout = setup.layout;
});
afterAll(() => {
  channel.port1.close();
});

/** One execution on the snapshotted instance, without the restore. */
function runOnly(code: string, timeoutMs = 5000): JobOutcome {
  link.reset();
  const outcome = new JobRun(
    snapshot.instance,
    {
      code,
      filename: 'code.js',
      globalsJson: JSON.stringify({ input: { n: 1 } }),
      memoryLimitBytes: 64 * MB,
      limits: {
        deadlineMs: Date.now() + timeoutMs,
        maxOutputBytes: MB,
        maxLogLines: 128,
        maxLogLineBytes: 4096,
      },
    },
    execId++,
    link,
  ).run();
  while (receiveMessageOnPort(channel.port1)) {}
  return outcome;
}

/** One execution, then the restore the worker does after posting the answer. */
function run(code: string, timeoutMs?: number): JobOutcome {
  const outcome = runOnly(code, timeoutMs);
  expect(snapshot.restore()).toEqual({ ok: true });
  return outcome;
}

function value(code: string): unknown {
  const outcome = run(code);
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return JSON.parse(outcome.valueJson);
}

function markerCopies(): number {
  const memory = Buffer.from(snapshot.instance.memory.buffer);
  let count = 0;
  for (let at = memory.indexOf(MARKER); at >= 0; at = memory.indexOf(MARKER, at + 1)) count++;
  return count;
}

describe('restoring a prepared instance in place', () => {
  it('leaves no byte of the previous run in linear memory', () => {
    const outcome = runOnly(
      `globalThis.keep = []; for (let i = 0; i < 5000; i++) keep.push('${MARKER}:' + i); keep.length`,
    );
    expect(outcome).toEqual({ ok: true, valueJson: '5000' });
    expect(markerCopies()).toBeGreaterThanOrEqual(5000);
    expect(snapshot.restore()).toEqual({ ok: true });
    expect(markerCopies()).toBe(0);
  });

  it('clears bytes left anywhere in the stack window, below untouched stretches too', () => {
    expect(value('(function f(n) { return n ? f(n - 1) + 1 : 0 })(2000)')).toBe(2000);
    expect(snapshot.firstDifference(snapshot.instance.usedBytes())).toBe(-1);
    // The window is the guest's recursion limit plus its slack, below the idle stack pointer.
    const windowLow = layout.stackHighAddress - STACK_LIMIT_BYTES - STACK_SLACK_BYTES;
    const memory = new Uint8Array(snapshot.instance.memory.buffer);
    for (const at of [windowLow, windowLow + 100_003, layout.stackHighAddress - 600_000])
      memory[at] = 0x5a;
    expect(snapshot.firstDifference(snapshot.instance.usedBytes())).toBe(windowLow);
    expect(snapshot.restore()).toEqual({ ok: true });
    expect(snapshot.firstDifference(snapshot.instance.usedBytes())).toBe(-1);
  });

  it('gives Math.random a new seed for every run that brings none', () => {
    const values = Array.from({ length: 5 }, () => value('Math.random()'));
    expect(new Set(values).size).toBe(5);
  });

  it('puts back the heap break, the memory length and the host reference table', () => {
    const used = snapshot.instance.usedBytes();
    const refs = runtimeInternals(snapshot.instance.runtime).hostRefs;
    const before = { nextId: refs.nextId, groups: refs.groups.size };
    expect(value("globalThis.big = 'x'.repeat(3e6); big.length")).toBe(3e6);
    expect(snapshot.instance.usedBytes()).toBe(used);
    expect({ nextId: refs.nextId, groups: refs.groups.size }).toEqual(before);
  });

  it('runs 10,000 mixed programs on one instance with no drift in memory or behaviour', () => {
    const used = snapshot.instance.usedBytes();
    const length = snapshot.instance.memory.buffer.byteLength;
    const heapBefore = process.memoryUsage().heapUsed;
    const kinds: Array<[string, (i: number) => string, (o: JobOutcome, i: number) => boolean]> = [
      ['value', (i) => `input.n + ${i}`, (o, i) => o.ok && o.valueJson === String(1 + i)],
      [
        'global and prototype writes',
        () => 'globalThis.g = (globalThis.g ?? 0) + 1; Object.prototype.p = 1; g',
        (o) => o.ok && o.valueJson === '1',
      ],
      ['throw', () => 'throw new TypeError("x")', (o) => !o.ok && o.error.code === 'RUNTIME_ERROR'],
      ['syntax error', () => 'let let', (o) => !o.ok && o.error.code === 'SYNTAX_ERROR'],
      ['log', () => 'console.log("line"); 1', (o) => o.ok && o.valueJson === '1'],
      [
        'allocation',
        () => 'new Array(50000).fill("a").join("").length',
        (o) => o.ok && o.valueJson === '50000',
      ],
      [
        'deleted bindings',
        () =>
          'const t = typeof call_tool; delete globalThis.call_tool; delete globalThis.console; t',
        (o) => o.ok && o.valueJson === '"function"',
      ],
    ];
    let failures = 0;
    for (let i = 0; i < 10_000; i++) {
      const [, code, ok] = kinds[i % kinds.length]!;
      if (!ok(run(code(i)), i)) failures++;
      if (i % 2500 === 1234) {
        expect(run('while (true) {}', 5)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
      }
      expect(snapshot.instance.usedBytes()).toBe(used);
    }
    expect(failures).toBe(0);
    expect(snapshot.instance.memory.buffer.byteLength).toBe(length);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * MB);
  }, 300_000);
});

describe('the start-up self-test', () => {
  it('refuses a module with a mutable global besides the stack pointer', async () => {
    expect(await setUpEngine({ ...wasm, mutableGlobals: 2 }, 64 * MB, STACK_LIMIT_BYTES)).toEqual({
      mode: 'fresh',
      reason: 'the module has 2 mutable globals, not 1',
    });
  });

  it('prepares instances at the top of the memory range (2048 MB), where cap + headroom exceeds the import', async () => {
    const setup = await setUpEngine(wasm, 2048 * MB, STACK_LIMIT_BYTES);
    expect(setup.mode === 'fresh' && setup.reason).toBe(false);
    expect(
      setup.mode === 'restore' && setup.prepared.instance.memory.buffer.byteLength,
    ).toBeGreaterThan(0);
  });

  it('refuses a restore that skips the heap, so the worker uses fresh instances', async () => {
    const setup = await setUpEngine(wasm, 64 * MB, STACK_LIMIT_BYTES, 'skip-heap');
    expect(setup.mode).toBe('fresh');
    expect(setup.mode === 'fresh' && setup.reason).toMatch(/memory differs from the snapshot/);
  });
});
