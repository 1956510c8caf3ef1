/**
 * @module The snapshot of a prepared instance and its restore in place: after each run the
 * instance's linear memory, stack pointer and the binding's JS-side state are put back to
 * what they were right after the prelude was installed, so the next run starts from the same
 * state as on a fresh instance (docs/engine.md). Math.random is the prelude's, seeded by each run.
 */
import type { QuickJSContext } from 'quickjs-emscripten-core';
import { type Instance, idleHost } from './instance.ts';
import {
  contextInternals,
  type HostRefMapInternals,
  type Layout,
  runtimeInternals,
  stackAccess,
} from './quickjs-internals.ts';

/** Room below the guest's recursion limit for native frames past QuickJS's own stack check. */
export const STACK_SLACK_BYTES = 256 * 1024;
/** Below the stack window: bytes checked after each run to prove the run stayed inside it. */
const STACK_GUARD_BYTES = 32 * 1024;
/**
 * The stack window is zeroed from the lowest chunk of this size that is not all zero: the chunks
 * below were read as zero, and writing zeros over them would make pages resident that no run
 * touched (the window is 1.3 MB, a trivial run dirties a few KiB of it). Zero checks compare a
 * chunk at a time against this many zeros.
 */
const ZERO_SCAN_CHUNK_BYTES = 16 * 1024;
const ZERO_CHUNK = new Uint8Array(ZERO_SCAN_CHUNK_BYTES);
/** An instance whose memory grew past this many times its snapshot size is replaced. */
export const GROWN_FACTOR = 2;

/** Tests only: a restore step to skip, so the worker's self-test must catch the weakened restore. */
export type RestoreFault = 'skip-heap';

type HostRefState = {
  nextId: number;
  freelist: number[];
  groups: Array<[number, Array<[number, unknown]>]>;
};

function saveHostRefs(refs: HostRefMapInternals): HostRefState {
  return {
    nextId: refs.nextId,
    freelist: [...refs.freelist],
    groups: [...refs.groups].map(([id, group]) => [id, [...group]]),
  };
}

function loadHostRefs(refs: HostRefMapInternals, state: HostRefState): void {
  refs.nextId = state.nextId;
  refs.freelist = [...state.freelist];
  refs.groups = new Map(state.groups.map(([id, group]) => [id, new Map(group)]));
}

function restoreSet<T>(set: Set<T>, saved: readonly T[]): void {
  set.clear();
  for (const item of saved) set.add(item);
}

function restoreMap<K, V>(map: Map<K, V>, saved: ReadonlyArray<[K, V]>): void {
  map.clear();
  for (const [key, value] of saved) map.set(key, value);
}

/** True when every byte is zero (memcmp against zeros, a chunk at a time). */
function isZero(bytes: Uint8Array): boolean {
  for (let at = 0; at < bytes.byteLength; at += ZERO_SCAN_CHUNK_BYTES) {
    const chunk = bytes.subarray(at, at + ZERO_SCAN_CHUNK_BYTES);
    if (Buffer.compare(chunk, ZERO_CHUNK.subarray(0, chunk.byteLength)) !== 0) return false;
  }
  return true;
}

/** Offset of the first nonzero byte, rounded down to 8 bytes; the length when all are zero. */
function firstNonZero(bytes: Uint8Array): number {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) return (i * 4) & ~7;
  return words.length * 4;
}

/**
 * The start of the lowest chunk of [start, end) that holds a nonzero byte (every byte below it
 * is zero), or `end` when all are zero. Reading pages never written maps the kernel's zero page
 * and does not make them resident.
 */
function lowestDirty(memory: Uint8Array, start: number, end: number): number {
  for (let at = start; at < end; at += ZERO_SCAN_CHUNK_BYTES)
    if (!isZero(memory.subarray(at, Math.min(at + ZERO_SCAN_CHUNK_BYTES, end)))) return at;
  return end;
}

export type RestoreOutcome = { ok: true } | { ok: false; reason: string };

export class Snapshot {
  /** [0, dataEnd): static data, the allocator's state and the break word among it. */
  private readonly low: Uint8Array;
  /**
   * [highStart, break): the used top of the stack window, then the heap up to the break. The
   * window below highStart, [windowLow, highStart), was zero at the snapshot and is zeroed.
   */
  private readonly high: Uint8Array;
  private readonly highStart: number;
  private readonly windowLow: number;
  private readonly breakAtSnapshot: number;
  private readonly byteLength: number;
  private readonly stackPointer: number;
  private readonly hostRefs: HostRefState;
  private readonly contextFields: Array<[string, unknown]>;
  private readonly runtimeContext: unknown;
  private readonly contextMap: Array<[number, QuickJSContext]>;
  private readonly contextCallbacks: Array<[number, unknown]>;
  private readonly runtimeCallbacks: Array<[number, unknown]>;
  private readonly runtimeScope: unknown[];
  private readonly contextScope: unknown[];
  private readonly setStackPointer: (sp: number) => void;

  /** Takes the snapshot of an idle, prepared instance; throws when the layout does not hold. */
  constructor(
    readonly instance: Instance,
    private readonly layout: Layout,
    stackLimitBytes: number,
    private readonly fault?: RestoreFault,
  ) {
    const stack = stackAccess(instance);
    if (!stack.ok) throw new Error(stack.reason);
    this.setStackPointer = stack.value.restore;
    this.stackPointer = stack.value.save();
    if (this.stackPointer !== layout.stackHighAddress)
      throw new Error(
        `the idle stack pointer is ${this.stackPointer}, not ${layout.stackHighAddress}`,
      );
    const buffer = instance.memory.buffer;
    this.byteLength = buffer.byteLength;
    this.breakAtSnapshot = this.readBreak();
    this.windowLow = layout.stackHighAddress - stackLimitBytes - STACK_SLACK_BYTES;
    if (this.windowLow - STACK_GUARD_BYTES < layout.dataEndAddress)
      throw new Error('the stack window is larger than the stack region');
    if (this.breakAtSnapshot < layout.stackHighAddress || this.breakAtSnapshot > this.byteLength)
      throw new Error(`the heap break ${this.breakAtSnapshot} is outside the heap`);
    // The deep stack (below the window) must be untouched, so a restore never needs its bytes:
    // the guard band is checked here, the whole of it by the self-test (firstDifference).
    if (!isZero(new Uint8Array(buffer, this.windowLow - STACK_GUARD_BYTES, STACK_GUARD_BYTES)))
      throw new Error('the stack below the restore window is not empty at the snapshot');
    this.low = new Uint8Array(buffer, 0, layout.dataEndAddress).slice();
    this.highStart =
      firstNonZero(new Uint8Array(buffer, this.windowLow, this.breakAtSnapshot - this.windowLow)) +
      this.windowLow;
    this.high = new Uint8Array(
      buffer,
      this.highStart,
      this.breakAtSnapshot - this.highStart,
    ).slice();
    const rt = runtimeInternals(instance.runtime);
    const cx = contextInternals(instance.context);
    this.hostRefs = saveHostRefs(rt.hostRefs);
    // The context caches handles it creates lazily (_global, _BigInt, ...) in fields named _*.
    this.contextFields = Object.entries(instance.context).filter(([key]) => key.startsWith('_'));
    this.runtimeContext = rt.context;
    this.contextMap = [...rt.contextMap];
    this.contextCallbacks = [...rt.callbacks.contextCallbacks];
    this.runtimeCallbacks = [...rt.callbacks.runtimeCallbacks];
    this.runtimeScope = [...rt.scope._disposables.value];
    this.contextScope = [...cx.memory.scope._disposables.value];
    instance.usedBytes = () => this.readBreak();
  }

  private readBreak(): number {
    return new Uint32Array(this.instance.memory.buffer, this.layout.breakWordAddress, 1)[0]!;
  }

  /** The memory's length when the snapshot was taken. */
  get snapshotBytes(): number {
    return this.byteLength;
  }

  /** True once the instance's memory grew past GROWN_FACTOR times its snapshot size. */
  get grown(): boolean {
    return this.instance.memory.buffer.byteLength > this.byteLength * GROWN_FACTOR;
  }

  /**
   * The first byte at which memory differs from the snapshot, up to
   * `zeroUpTo` (the highest break a run reached), or -1. For the self-test: memory outside the
   * copied ranges must be zero, as it was when the snapshot was taken.
   */
  firstDifference(zeroUpTo: number): number {
    const memory = new Uint8Array(this.instance.memory.buffer);
    const copied: Array<[number, Uint8Array]> = [
      [0, this.low],
      [this.highStart, this.high],
    ];
    for (const [start, expected] of copied) {
      const actual = memory.subarray(start, start + expected.byteLength);
      if (Buffer.compare(actual, expected) === 0) continue;
      for (let i = 0; i < expected.byteLength; i++) if (actual[i] !== expected[i]) return start + i;
    }
    const zero: Array<[number, number]> = [
      [this.layout.dataEndAddress, this.highStart],
      [this.breakAtSnapshot, Math.max(this.breakAtSnapshot, zeroUpTo)],
    ];
    for (const [start, end] of zero) {
      const bytes = memory.subarray(start, end);
      if (!isZero(bytes)) return start + bytes.findIndex((b) => b !== 0);
    }
    return -1;
  }

  /**
   * Puts the instance back to the snapshot. Not ok when it cannot (the break went down, the
   * memory grew too much): the caller drops the instance.
   */
  restore(): RestoreOutcome {
    const { instance, layout } = this;
    instance.host = idleHost;
    instance.shouldInterrupt = () => false;
    const breakNow = this.readBreak();
    if (breakNow < this.breakAtSnapshot) return { ok: false, reason: 'the heap break went down' };
    const memory = new Uint8Array(instance.memory.buffer);
    memory.set(this.low, 0);
    memory.fill(0, lowestDirty(memory, this.windowLow, this.highStart), this.highStart);
    if (this.fault !== 'skip-heap') memory.set(this.high, this.highStart);
    // Nothing lives above the break: what the run added there goes back to zero.
    memory.fill(0, this.breakAtSnapshot, breakNow);
    // A run that went below the window (it never should) gets the whole deep stack cleared.
    const guard = memory.subarray(this.windowLow - STACK_GUARD_BYTES, this.windowLow);
    if (!isZero(guard)) memory.fill(0, layout.dataEndAddress, this.windowLow);
    // A trap leaves the stack pointer wherever the run was.
    this.setStackPointer(this.stackPointer);
    const rt = runtimeInternals(instance.runtime);
    const cx = contextInternals(instance.context);
    loadHostRefs(rt.hostRefs, this.hostRefs);
    for (const [key, value] of this.contextFields)
      (instance.context as unknown as Record<string, unknown>)[key] = value;
    rt.context = this.runtimeContext as typeof rt.context;
    restoreMap(rt.contextMap, this.contextMap);
    restoreMap(rt.callbacks.contextCallbacks, this.contextCallbacks);
    restoreMap(rt.callbacks.runtimeCallbacks, this.runtimeCallbacks);
    restoreSet(rt.scope._disposables.value, this.runtimeScope);
    restoreSet(cx.memory.scope._disposables.value, this.contextScope);
    return { ok: true };
  }
}
