/**
 * @module A fresh QuickJS instance: its own capped WebAssembly.Memory, runtime, context
 * and prelude. Built ahead of time so an execution only has to run.
 */
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import type { WasmBuild } from '../protocol.ts';
import { withClock } from './clock-import.ts';
import { INTL_SOURCE } from './intl.ts';
import { HOST_GLOBAL, PRELUDE_SOURCE } from './prelude.ts';

const WASM_PAGE_BYTES = 65_536;
/** The module's own minimum (its INITIAL_MEMORY is 16 MiB). */
const INITIAL_PAGES = 256;
/** Room above the QuickJS heap cap for the C stack and static data, so the JS heap limit trips first. */
const MEMORY_HEADROOM_BYTES = 8 * 1_048_576;
/** The part of the WebAssembly API Node's types leave out. */
interface WasmInstance {
  exports: Record<string, unknown>;
}
interface WasmApi {
  Instance: new (module: WebAssembly.Module, imports: object) => WasmInstance;
}
/** The package's types describe its CommonJS face; under ESM the default export is the variant. */
const variant = releaseSync as unknown as QuickJSSyncVariant;

const HOOK_NAMES = ['fast', 'setGlobals', 'isError', 'parse'] as const;

/** Host functions the prelude captures; the run installs the real ones per execution. */
export interface HostHooks {
  call(json: string): string;
  batch(json: string): string;
  /** Starts an async call; returns the guest promise that settles with its envelope. */
  callAsync(json: string, dialect: 'async' | 'catalog'): QuickJSHandle;
  log(level: string, line: string): void;
  /** Every reading of the wall clock QuickJS takes (Date.now(), new Date(), Date()), in epoch ms. */
  now(): number;
}

export interface Instance {
  memoryLimitBytes: number;
  memory: WebAssembly.Memory;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** The prelude's hook functions, looked up once at preparation. */
  hooks: Record<(typeof HOOK_NAMES)[number], QuickJSHandle>;
  /** Replaced by each execution before the program runs. */
  host: HostHooks;
  /** Set by the run: true makes the interrupt handler stop the guest. */
  shouldInterrupt: () => boolean;
  /** The guest's Intl object, once compiled (on first use, or ahead when preloaded). */
  intl?: QuickJSHandle;
  /** True once the guest asked for Intl. */
  usedIntl: boolean;
  /** The raw exports of this instance's wasm (the snapshot restore reads the stack pointer through them). */
  exports: Record<string, unknown>;
  /**
   * Bytes of linear memory the program has taken so far: the memory's length, or the heap's
   * break once a snapshot knows where to read it (a restored memory never shrinks).
   */
  usedBytes: () => number;
}

function installHostFunctions(instance: Instance): void {
  const { context } = instance;
  const holder = context.newObject();
  const fns = {
    call: context.newFunction('call', (json) =>
      context.newString(instance.host.call(context.getString(json))),
    ),
    batch: context.newFunction('batch', (json) =>
      context.newString(instance.host.batch(context.getString(json))),
    ),
    callAsync: context.newFunction('callAsync', (json, dialect) =>
      instance.host.callAsync(
        context.getString(json),
        context.getString(dialect) === 'catalog' ? 'catalog' : 'async',
      ),
    ),
    log: context.newFunction('log', (level, line) => {
      instance.host.log(context.getString(level), context.getString(line));
    }),
    // Compiled on the guest's first use of Intl, unless the instance was prepared with it.
    intl: context.newFunction('intl', () => {
      instance.usedIntl = true;
      instance.intl ??= compileIntl(context);
      return instance.intl.dup();
    }),
  };
  for (const [name, fn] of Object.entries(fns)) {
    context.setProp(holder, name, fn);
    fn.dispose();
  }
  context.setProp(context.global, HOST_GLOBAL, holder);
  holder.dispose();
}

function compileIntl(context: QuickJSContext): QuickJSHandle {
  return context.unwrapResult(context.evalCode(INTL_SOURCE, '<intl>'));
}

export const idleHost: HostHooks = {
  call: () => {
    throw new Error('no execution is running');
  },
  batch: () => {
    throw new Error('no execution is running');
  },
  callAsync: () => {
    throw new Error('no execution is running');
  },
  log: () => {},
  now: () => Date.now(),
};

/**
 * Builds one instance with the given memory cap; `stackLimitBytes` bounds guest recursion.
 * `preloadIntl` compiles Intl now, while the worker is idle, for workloads that use it.
 */
export async function createInstance(
  wasm: Pick<WasmBuild, 'module' | 'memoryMaxPages'>,
  memoryLimitBytes: number,
  stackLimitBytes: number,
  preloadIntl = false,
): Promise<Instance> {
  // Never above what the module's memory import accepts (2 GiB for the pinned build): near it,
  // a cap plus headroom would not link. The heap's limit then keeps the headroom below that.
  const maximumPages = Math.min(
    wasm.memoryMaxPages,
    Math.max(
      INITIAL_PAGES,
      Math.ceil((memoryLimitBytes + MEMORY_HEADROOM_BYTES) / WASM_PAGE_BYTES),
    ),
  );
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: maximumPages });
  let exports: Record<string, unknown> | undefined;
  // The wasm reads the clock through the current run's host (the idle one until the instance exists).
  let host: () => HostHooks = () => idleHost;
  // Instantiated here rather than through newVariant's wasmModule option, to keep the exports.
  const instantiateWasm = (imports: object, onSuccess: (instance: WasmInstance) => void) => {
    const instance = new (WebAssembly as unknown as WasmApi).Instance(
      wasm.module,
      withClock(imports, () => host().now()),
    );
    exports = instance.exports;
    onSuccess(instance);
    return instance.exports;
  };
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmMemory: memory, emscriptenModule: { instantiateWasm } }),
  );
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(
    Math.min(memoryLimitBytes, maximumPages * WASM_PAGE_BYTES - MEMORY_HEADROOM_BYTES),
  );
  runtime.setMaxStackSize(stackLimitBytes);
  const context = runtime.newContext();
  const instance: Instance = {
    memoryLimitBytes,
    memory,
    runtime,
    context,
    hooks: {
      fast: context.undefined,
      setGlobals: context.undefined,
      isError: context.undefined,
      parse: context.undefined,
    },
    host: idleHost,
    shouldInterrupt: () => false,
    usedIntl: false,
    exports: exports!,
    usedBytes: () => memory.buffer.byteLength,
  };
  host = () => instance.host;
  runtime.setInterruptHandler(() => instance.shouldInterrupt());
  installHostFunctions(instance);
  const hooks = context.unwrapResult(context.evalCode(PRELUDE_SOURCE, '<prelude>'));
  for (const name of HOOK_NAMES) instance.hooks[name] = context.getProp(hooks, name);
  hooks.dispose();
  if (preloadIntl) instance.intl = compileIntl(context);
  warmUp(instance);
  return instance;
}

/**
 * Runs the request path once with empty values (no globals set, nothing kept), so the first
 * real execution does not pay the context's first-use costs.
 */
function warmUp(instance: Instance): void {
  const { context, hooks } = instance;
  context.unwrapResult(context.evalCode('void 0', '<warm-up>', 1 << 7)).dispose();
  instance.runtime.executePendingJobs(-1);
  const value = context.newObject();
  context.unwrapResult(context.callFunction(hooks.fast, context.undefined, value)).dispose();
  value.dispose();
}

/** True when the instance's memory has grown to (nearly) its cap. */
export function memoryExhausted(instance: Instance): boolean {
  return instance.usedBytes() >= instance.memoryLimitBytes * 0.9;
}
