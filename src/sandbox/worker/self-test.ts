/**
 * @module The worker's start-up check of the snapshot restore on the pinned QuickJS build:
 * probe the layout on a throwaway instance, then dirty a prepared one every way a run can
 * (globals, prototypes, deleted bindings, a stack overflow, heap growth, a new host function,
 * a stack pointer left low), restore it, and compare every byte with the snapshot. Any
 * difference means the build is not the one this was written for: the worker then uses
 * fresh instances.
 */
import { createInstance, type Instance } from './instance.ts';
import {
  contextInternals,
  type Layout,
  probeLayout,
  runtimeInternals,
} from './quickjs-internals.ts';
import { type RestoreFault, Snapshot } from './snapshot.ts';

/** Cap of the throwaway probe instance: room for the break probe's allocations. */
const PROBE_MEMORY_LIMIT_BYTES = 64 * 1_048_576;

const DIRTY_PROGRAM = `
globalThis.__marker = [];
for (let i = 0; i < 3000; i++) __marker.push('codemux-self-test-' + i + '-'.repeat(200));
Object.prototype.__polluted = 1;
Array.prototype.push = null;
delete globalThis.call_tool;
delete globalThis.console;
Math.random();
1`;
const DEEP_PROGRAM = '(function f(n) { return f(n + 1) + 1 })(0)';
const CLEAN_PROGRAM = `console.log('self-test');
typeof call_tool === 'function' && typeof console.log === 'function' && !('__marker' in globalThis)
  && !('__polluted' in Object.prototype) && typeof Array.prototype.push === 'function'
  && typeof __probe_fn === 'undefined'`;

export type EngineSetup =
  | { mode: 'restore'; layout: Layout; prepared: Snapshot }
  | { mode: 'fresh'; reason: string };

/** Evaluates `code`; undefined when it throws, in the guest or in the engine (a trap). */
function evalQuietly(instance: Instance, code: string): unknown {
  let result: ReturnType<Instance['context']['evalCode']>;
  try {
    result = instance.context.evalCode(code, '<self-test>');
  } catch {
    return undefined;
  }
  if (result.error) {
    result.error.dispose();
    return undefined;
  }
  const value = instance.context.dump(result.value);
  result.value.dispose();
  return value;
}

function randomOf(instance: Instance): unknown {
  return evalQuietly(instance, 'Math.random()');
}

/** First byte offset where memory differs from `before` (the random state masked), or -1. */
function firstDifference(instance: Instance, before: Uint8Array, randomAt: number): number {
  const now = new Uint8Array(instance.memory.buffer);
  const masked = before.slice();
  masked.set(now.subarray(randomAt, randomAt + 8), randomAt);
  const a = new BigUint64Array(masked.buffer, 0, masked.byteLength >> 3);
  const b = new BigUint64Array(now.buffer, 0, masked.byteLength >> 3);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i * 8;
  const tail = new BigUint64Array(now.buffer, masked.byteLength);
  for (let i = 0; i < tail.length; i++) if (tail[i] !== 0n) return masked.byteLength + i * 8;
  return -1;
}

function hostRefCount(instance: Instance): string {
  const refs = runtimeInternals(instance.runtime).hostRefs;
  let count = 0;
  for (const group of refs.groups.values()) count += group.size;
  return `${refs.nextId}/${count}/${refs.freelist.length}`;
}

/** Dirties a snapshotted instance, restores it, and says what (if anything) did not come back. */
function check(snapshot: Snapshot, layout: Layout): string | undefined {
  const { instance } = snapshot;
  const before = new Uint8Array(instance.memory.buffer).slice();
  const refsBefore = hostRefCount(instance);
  const randomAt = contextInternals(instance.context).ctx.value + layout.randomStateOffset;
  const { context } = instance;
  const probeFn = context.newFunction('probe', () => undefined);
  context.setProp(context.global, '__probe_fn', probeFn);
  probeFn.dispose();
  if (evalQuietly(instance, DIRTY_PROGRAM) !== 1) return 'the dirtying program did not run';
  evalQuietly(instance, DEEP_PROGRAM);
  instance.runtime.executePendingJobs(-1);
  const first = randomOf(instance);
  const restored = snapshot.restore();
  if (!restored.ok) return restored.reason;
  const at = firstDifference(instance, before, randomAt);
  if (at >= 0) return `memory differs from the snapshot at byte ${at} after a restore`;
  if (hostRefCount(instance) !== refsBefore) return 'the host reference table was not restored';
  if (evalQuietly(instance, CLEAN_PROGRAM) !== true)
    return 'a run after the restore saw the previous run';
  const second = randomOf(instance);
  snapshot.restore();
  if (first === second || second === randomOf(instance)) return 'Math.random was not reseeded';
  const last = snapshot.restore();
  return last.ok ? undefined : last.reason;
}

/**
 * Decides how this worker prepares instances: restore in place when every check passes
 * (and hands over the checked instance, ready for its first run), else fresh instances.
 */
export async function setUpEngine(
  wasmModule: WebAssembly.Module,
  memoryLimitBytes: number,
  stackLimitBytes: number,
  fault?: RestoreFault,
): Promise<EngineSetup> {
  try {
    const probe = await createInstance(wasmModule, PROBE_MEMORY_LIMIT_BYTES, stackLimitBytes);
    const layout = probeLayout(probe);
    if (!layout.ok) return { mode: 'fresh', reason: layout.reason };
    const instance = await createInstance(wasmModule, memoryLimitBytes, stackLimitBytes);
    const snapshot = new Snapshot(instance, layout.value, stackLimitBytes, fault);
    const failed = check(snapshot, layout.value);
    if (failed) return { mode: 'fresh', reason: failed };
    return { mode: 'restore', layout: layout.value, prepared: snapshot };
  } catch (error) {
    return { mode: 'fresh', reason: (error as Error)?.message ?? String(error) };
  }
}
