/**
 * @module The typed message protocol between the host and a sandbox worker.
 * The worker side imports nothing from the host side but this file.
 */
import type { MessagePort } from 'node:worker_threads';

/** call_tools(): most elements per batch, and the range of a batch's max_parallel. */
export const MAX_BATCH_SIZE = 100;
export const BATCH_PARALLEL_RANGE = { min: 1, max: 32 } as const;

/** Limits the worker enforces itself for one execution. */
export interface JobLimits {
  /** Epoch milliseconds after which the guest is interrupted. */
  deadlineMs: number;
  /** Largest serialized value accepted, in UTF-8 bytes. */
  maxOutputBytes: number;
  /** The config field that sets maxOutputBytes, named in OUTPUT_TOO_LARGE (default code_execution_max_output_bytes). */
  maxOutputBytesField?: string;
  maxLogLines: number;
  maxLogLineBytes: number;
  /** Guest CPU budget, not counting waits on the host (the execute dialect). */
  computeMs?: number;
  /** Tool, catalog and log calls allowed; the next one ends the run (the execute dialect). */
  maxHostCalls?: number;
}

/** One program to run. `code` is already JavaScript; positions are mapped back by the host. */
export interface JobSpec {
  code: string;
  filename: string;
  /** Top-level variables the program sees, as JSON text: `{"input": {...}}`. */
  globalsJson: string;
  /** Globals of `globalsJson` whose ISO 8601 text becomes a `Date` (code tool date params). */
  dateGlobals?: string[];
  /** Top-level variables defined as `undefined` (code tool params omitted without a default). */
  undefinedGlobals?: string[];
  /** Prelude globals this dialect does not offer (execute has no call_tool / call_tools). */
  hide?: string[];
  limits: JobLimits;
  /** Cap of this execution's own WebAssembly.Memory. */
  memoryLimitBytes: number;
  /**
   * Math.random's seed (its text is what counts: 7 and '7' are one seed). The same seed gives
   * the same numbers; the host makes one per run and keeps it to replay the run. Without one
   * the worker picks 128 random bits, and the run cannot be replayed.
   */
  seed?: string | number;
  /** A replayed run: what the run it replays took, answered to the guest in order, then live. */
  replay?: JobReplay;
}

/** What a replayed run is answered from before it goes on live. */
export interface JobReplay {
  /** The guest's clock readings (epoch ms), in the order the run took them. */
  clock: number[];
}

/** Slots of a worker's shared signal (an Int32Array on `WorkerInit.signal`). */
export const SIGNAL = {
  /** Bumped by the host after each reply it posts on the call port. */
  replies: 0,
  /** 1 while the worker holds a prepared instance (set by the worker, cleared by the host). */
  prepared: 1,
  /**
   * Holds open on the run's clock (RunClock.hold), set by the host; each change also bumps
   * `replies`, so a waiting worker re-reads it at once. While it is above 0 the worker's
   * waits on the host do not count toward the wall-clock deadline.
   */
  held: 2,
  /**
   * Milliseconds the run's clock was held, closed holds only, set by the host before it
   * clears `held`: the worker never counts more than this as paused, so its deadline never
   * passes after the host's (it wakes a little after each release).
   */
  heldMs: 3,
} as const;
export const SIGNAL_BYTES = 4 * Int32Array.BYTES_PER_ELEMENT;

/** The QuickJS wasm, compiled once by the host, with what it knows of the binary. */
export interface WasmBuild {
  module: WebAssembly.Module;
  /** Mutable wasm globals the module has; the snapshot restore requires exactly one (the stack pointer). */
  mutableGlobals: number;
  /** The maximum of the module's memory import, in 64 KiB pages: no instance's memory may be larger. */
  memoryMaxPages: number;
}

/** Sent once at startup in workerData. */
export interface WorkerInit {
  /** The port the worker uses for host calls and logs; replies come back on it. */
  port: MessagePort;
  /** The worker's shared signal, slots in SIGNAL. */
  signal: SharedArrayBuffer;
  wasm: WasmBuild;
  stackLimitBytes: number;
  /** Memory cap of the first instance the worker prepares. */
  memoryLimitBytes: number;
  /** Tests only: a snapshot-restore step to skip, which the worker's self-test must catch. */
  restoreFault?: 'skip-heap';
}

/** Host -> worker, on the worker's own message channel (parentPort). */
export type HostToWorker = { type: 'execute'; execId: number; job: JobSpec };

/** A failure the sandbox reports, positions in the code it ran. */
export interface GuestError {
  code:
    | 'SYNTAX_ERROR'
    | 'RUNTIME_ERROR'
    | 'TIMEOUT'
    | 'SERIALIZATION_ERROR'
    | 'MEMORY_LIMIT_EXCEEDED'
    | 'OUTPUT_TOO_LARGE'
    | 'MAX_TOOL_CALLS_EXCEEDED'
    | 'RESOURCE_LIMIT_EXCEEDED'
    /** `globalsJson` did not parse in the guest ('out of memory' or 'stack overflow'); nothing ran. */
    | 'GLOBALS_TOO_LARGE'
    /** The host's signal aborted the run (its worker was stopped); the message is the reason. */
    | 'CANCELLED'
    /** A resumed run asked for something other than its journal holds (the host ends it). */
    | 'REPLAY_DIVERGED'
    | 'EXECUTION_FAILED';
  message: string;
  stack?: string;
  line?: number;
  column?: number;
}

export type JobOutcome = { ok: true; valueJson: string } | { ok: false; error: GuestError };

/**
 * Worker -> host, on parentPort. `engine` comes first and says how the worker prepares
 * instances: restored in place from a snapshot, or fresh (with the failed check as `warning`).
 */
export type WorkerToHost =
  | { type: 'ready' }
  | { type: 'engine'; mode: 'restore' | 'fresh'; warning?: string };

/** One tool call, as the guest prelude validated it. Travels as JSON text. */
export interface CallRequest {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A call_tools() batch, as the guest prelude validated it. Travels as JSON text. */
export interface BatchRequest {
  requests: CallRequest[];
  max_parallel?: number;
}

/** sync: call_tool; async: tools.*; catalog: catalog.* (requestJson is `{op, params}`). */
export type CallDialect = 'sync' | 'async' | 'catalog';

/**
 * Worker -> host, on the call port. `clock`, when present, holds the clock readings the guest
 * took live (not answered from `JobSpec.replay`) since the previous message, in order: they
 * travel with the next message instead of costing a round trip each.
 */
export type CallMessage = (
  | { type: 'call'; execId: number; callId: number; dialect: CallDialect; requestJson: string }
  | { type: 'batch'; execId: number; callId: number; batchJson: string }
  | { type: 'log'; execId: number; level: LogLevel; line: string }
  /** On the call port too, so it can never overtake the execution's log lines. */
  | { type: 'done'; execId: number; outcome: JobOutcome }
) & { clock?: number[] };

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

/**
 * Host -> worker, on the call port. `envelopeJson` is what the guest receives;
 * `fatal` ends the run with that error whatever the guest does next.
 */
export type CallReply =
  | { type: 'reply'; execId: number; callId: number; envelopeJson: string }
  | {
      type: 'fatal';
      execId: number;
      callId: number;
      error: { code: GuestError['code']; message: string };
    };
