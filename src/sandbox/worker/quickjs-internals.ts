/**
 * @module What the snapshot restore relies on inside the pinned QuickJS build
 * (@jitl/quickjs-wasmfile-release-sync and quickjs-emscripten-core, both 0.32.0 exactly):
 * minified export names, the memory layout, and the binding's JS-side fields. Addresses are
 * found by probing the worker's first instance before its snapshot (probeLayout), each one
 * checked, never assumed.
 */
import type { QuickJSContext, QuickJSRuntime } from 'quickjs-emscripten-core';
import type { Instance } from './instance.ts';

/** emscripten's stackSave / stackRestore, as the build's glue names them (`ta=b.Oa`, `ua=b.Ma`). */
const STACK_SAVE_EXPORT = 'Oa';
const STACK_RESTORE_EXPORT = 'Ma';
/** The build's STACK_SIZE: static data ends where the stack region begins, this far below its top. */
export const STACK_REGION_BYTES = 5 * 1_048_576;
/**
 * Bytes allocated by each break probe. The break moves by at least half of it (the allocator's
 * free top chunk absorbs the rest); of the static words that move that far, it is the highest.
 */
const PROBE_ALLOCATION_CHARS = 64_000;

/** Where things are in one instance of the build; the same for every instance of it. */
export interface Layout {
  /** The stack pointer of an idle instance: the top of the stack region, where the heap starts. */
  stackHighAddress: number;
  /** End of static data (and start of the stack region). */
  dataEndAddress: number;
  /** The static word holding the allocator's break (sbrk); it never goes down. */
  breakWordAddress: number;
}

export type Probed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The binding's objects and fields the restore must put back (quickjs-emscripten-core internals). */
export interface HostRefMapInternals {
  nextId: number;
  freelist: number[];
  groups: Map<number, Map<number, unknown>>;
}
interface ScopeInternals {
  _disposables: { value: Set<unknown> };
}
export interface RuntimeInternals {
  hostRefs: HostRefMapInternals;
  contextMap: Map<number, QuickJSContext>;
  scope: ScopeInternals;
  context: QuickJSContext | undefined;
  callbacks: {
    contextCallbacks: Map<number, unknown>;
    runtimeCallbacks: Map<number, unknown>;
  };
}
export interface ContextInternals {
  ctx: { value: number };
  memory: { scope: ScopeInternals };
}

export function runtimeInternals(runtime: QuickJSRuntime): RuntimeInternals {
  return runtime as unknown as RuntimeInternals;
}
export function contextInternals(context: QuickJSContext): ContextInternals {
  return context as unknown as ContextInternals;
}

/** Checks that the binding's fields the restore touches exist with the expected shapes. */
export function checkBinding(instance: Instance): string | undefined {
  const rt = runtimeInternals(instance.runtime);
  const cx = contextInternals(instance.context);
  const refs = rt.hostRefs;
  if (!refs || typeof refs.nextId !== 'number' || !Array.isArray(refs.freelist))
    return 'runtime.hostRefs is not {nextId, freelist, groups}';
  if (!(refs.groups instanceof Map)) return 'runtime.hostRefs.groups is not a Map';
  if (!(rt.contextMap instanceof Map)) return 'runtime.contextMap is not a Map';
  if (!(rt.scope?._disposables?.value instanceof Set)) return 'runtime.scope is not a Scope';
  if (!(cx.memory?.scope?._disposables?.value instanceof Set))
    return 'context.memory.scope is not a Scope';
  if (
    !(rt.callbacks?.contextCallbacks instanceof Map) ||
    !(rt.callbacks.runtimeCallbacks instanceof Map)
  )
    return 'runtime.callbacks has no callback maps';
  if (typeof cx.ctx?.value !== 'number' || cx.ctx.value <= 0) return 'context.ctx is not a pointer';
  return undefined;
}

/** The instance's stack pointer accessors (emscripten's stackSave / stackRestore). */
export function stackAccess(
  instance: Instance,
): Probed<{ save: () => number; restore: (sp: number) => void }> {
  const save = instance.exports[STACK_SAVE_EXPORT];
  const restore = instance.exports[STACK_RESTORE_EXPORT];
  if (typeof save !== 'function' || typeof restore !== 'function')
    return {
      ok: false,
      reason: `exports ${STACK_SAVE_EXPORT}/${STACK_RESTORE_EXPORT} are missing`,
    };
  const saveFn = save as () => number;
  const restoreFn = restore as (sp: number) => void;
  const sp = saveFn();
  if (!Number.isInteger(sp) || sp <= 0) return { ok: false, reason: `stackSave returned ${sp}` };
  // A round trip through another value proves the pair reads and writes the same global.
  restoreFn(sp - 16);
  const moved = saveFn();
  restoreFn(sp);
  if (moved !== sp - 16 || saveFn() !== sp)
    return { ok: false, reason: 'stackSave/stackRestore do not address the same stack pointer' };
  return { ok: true, value: { save: saveFn, restore: restoreFn } };
}

function evalNumber(instance: Instance, code: string): number {
  const { context } = instance;
  const handle = context.unwrapResult(context.evalCode(code, '<probe>'));
  const value = context.getNumber(handle);
  handle.dispose();
  return value;
}

function readBreak(instance: Instance, address: number): number {
  return new Uint32Array(instance.memory.buffer, address, 1)[0]!;
}

/** Finds sbrk's break word: the static word that moves up with a large allocation, and only up. */
function probeBreak(instance: Instance, dataEnd: number, heapStart: number): Probed<number> {
  const words = dataEnd >> 2;
  const before = new Uint32Array(instance.memory.buffer, 0, words).slice();
  evalNumber(instance, `globalThis.__probe1 = 'a'.repeat(${PROBE_ALLOCATION_CHARS}); 0`);
  const after = new Uint32Array(instance.memory.buffer, 0, words);
  let found = -1;
  for (let i = 0; i < words; i++) {
    const old = before[i]!;
    const now = after[i]!;
    if (old < heapStart || now < old + PROBE_ALLOCATION_CHARS / 2) continue;
    if (now > instance.memory.buffer.byteLength) continue;
    // The break is the highest of the words that moved (dlmalloc's top chunk sits below it).
    if (found < 0 || now > after[found]!) found = i;
  }
  if (found < 0) return { ok: false, reason: 'no static word moved with a large allocation' };
  const address = found << 2;
  const first = readBreak(instance, address);
  evalNumber(instance, `globalThis.__probe2 = 'b'.repeat(${PROBE_ALLOCATION_CHARS}); 0`);
  const second = readBreak(instance, address);
  if (second < first + PROBE_ALLOCATION_CHARS / 2)
    return { ok: false, reason: 'the break candidate did not move with a second allocation' };
  evalNumber(instance, 'delete globalThis.__probe1; delete globalThis.__probe2; 0');
  instance.runtime.executePendingJobs(-1);
  if (readBreak(instance, address) < second)
    return { ok: false, reason: 'the allocator gave memory back (its break went down)' };
  return { ok: true, value: address };
}

/**
 * Finds the layout on a prepared instance, before its snapshot. It leaves the heap's break
 * 2 x 64 KB higher (freed); nothing else the guest can see.
 */
export function probeLayout(instance: Instance): Probed<Layout> {
  // The probe's allocations must not meet a small memory cap; the cap is set back after.
  instance.runtime.setMemoryLimit(-1);
  try {
    return probe(instance);
  } finally {
    instance.runtime.setMemoryLimit(instance.memoryLimitBytes);
  }
}

function probe(instance: Instance): Probed<Layout> {
  const binding = checkBinding(instance);
  if (binding) return { ok: false, reason: binding };
  const stack = stackAccess(instance);
  if (!stack.ok) return stack;
  const stackHighAddress = stack.value.save();
  const dataEndAddress = stackHighAddress - STACK_REGION_BYTES;
  if (dataEndAddress <= 0 || stackHighAddress % 16 !== 0)
    return { ok: false, reason: `the idle stack pointer ${stackHighAddress} is not a stack top` };
  const breakWord = probeBreak(instance, dataEndAddress, stackHighAddress);
  if (!breakWord.ok) return breakWord;
  return {
    ok: true,
    value: {
      stackHighAddress,
      dataEndAddress,
      breakWordAddress: breakWord.value,
    },
  };
}
