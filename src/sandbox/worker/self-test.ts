/**
 * @module The worker's start-up check of the snapshot restore on the pinned QuickJS build:
 * probe the layout on the worker's first instance, snapshot it, then dirty it every way a run can
 * (globals, prototypes, deleted bindings, a stack overflow, heap growth, a new host function,
 * a stack pointer left low), restore it, and compare every byte with the snapshot. Any
 * difference means the build is not the one this was written for: the worker then uses
 * fresh instances.
 */
import type { WasmBuild } from '../protocol.ts';
import { createInstance, type Instance } from './instance.ts';
import { type Layout, probeLayout, runtimeInternals, stackAccess } from './quickjs-internals.ts';
import { type RestoreFault, Snapshot } from './snapshot.ts';

/** The guest's recursion limit during the self-test's stack overflow (the restore puts the real one back). */
const SELF_TEST_STACK_LIMIT_BYTES = 128 * 1024;
/** Where the check leaves the stack pointer before restoring, as a trap deep in a run would. */
const STACK_TRAP_DEPTH_BYTES = 64 * 1024;
/** Bytes above the highest break the dirtying run reached that must still be zero after it. */
const ABOVE_BREAK_CHECK_BYTES = 64 * 1024;

const DIRTY_PROGRAM = `
globalThis.__marker = [];
for (let i = 0; i < 24; i++) __marker.push('codemux-self-test-' + i + '-'.repeat(10000));
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

function hostRefCount(instance: Instance): string {
  const refs = runtimeInternals(instance.runtime).hostRefs;
  let count = 0;
  for (const group of refs.groups.values()) count += group.size;
  return `${refs.nextId}/${count}/${refs.freelist.length}`;
}

/** Dirties a snapshotted instance, restores it, and says what (if anything) did not come back. */
function check(snapshot: Snapshot, layout: Layout): string | undefined {
  const { instance } = snapshot;
  const refsBefore = hostRefCount(instance);
  const breakBefore = instance.usedBytes();
  const { context } = instance;
  const probeFn = context.newFunction('probe', () => undefined);
  context.setProp(context.global, '__probe_fn', probeFn);
  probeFn.dispose();
  if (evalQuietly(instance, DIRTY_PROGRAM) !== 1) return 'the dirtying program did not run';
  // A stack overflow at a lower limit: the window (limit + slack) holds by the same formula,
  // and the worker's native stack is not grown to the full limit's depth for good.
  instance.runtime.setMaxStackSize(SELF_TEST_STACK_LIMIT_BYTES);
  evalQuietly(instance, DEEP_PROGRAM);
  instance.runtime.executePendingJobs(-1);
  const dirtyBreak = instance.usedBytes();
  if (dirtyBreak <= breakBefore) return 'the heap break did not move with the dirtying run';
  // Pretend the run trapped deep in the stack: the restore must put the stack pointer back.
  const stack = stackAccess(instance);
  if (!stack.ok) return stack.reason;
  stack.value.restore(layout.stackHighAddress - STACK_TRAP_DEPTH_BYTES);
  const restored = snapshot.restore();
  if (!restored.ok) return restored.reason;
  if (stack.value.save() !== layout.stackHighAddress) return 'the stack pointer was not restored';
  const at = snapshot.firstDifference(dirtyBreak + ABOVE_BREAK_CHECK_BYTES);
  if (at >= 0) return `memory differs from the snapshot at byte ${at} after a restore`;
  if (hostRefCount(instance) !== refsBefore) return 'the host reference table was not restored';
  if (evalQuietly(instance, CLEAN_PROGRAM) !== true)
    return 'a run after the restore saw the previous run';
  const last = snapshot.restore();
  return last.ok ? undefined : last.reason;
}

/**
 * Decides how this worker prepares instances: restore in place when every check passes
 * (and hands over the checked instance, ready for its first run), else fresh instances.
 */
export async function setUpEngine(
  wasm: WasmBuild,
  memoryLimitBytes: number,
  stackLimitBytes: number,
  fault?: RestoreFault,
): Promise<EngineSetup> {
  // The stack pointer is the one global the restore puts back.
  if (wasm.mutableGlobals !== 1)
    return {
      mode: 'fresh',
      reason: `the module has ${wasm.mutableGlobals} mutable globals, not 1`,
    };
  try {
    // Intl compiled before the snapshot, as prepare() does for every restored instance.
    const instance = await createInstance(wasm, memoryLimitBytes, stackLimitBytes, true);
    const layout = probeLayout(instance);
    if (!layout.ok) return { mode: 'fresh', reason: layout.reason };
    const snapshot = new Snapshot(instance, layout.value, stackLimitBytes, fault);
    const failed = check(snapshot, layout.value);
    if (failed) return { mode: 'fresh', reason: failed };
    return { mode: 'restore', layout: layout.value, prepared: snapshot };
  } catch (error) {
    return { mode: 'fresh', reason: (error as Error)?.message ?? String(error) };
  }
}
