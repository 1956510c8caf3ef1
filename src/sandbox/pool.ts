/**
 * @module The sandbox worker pool: up to `size` worker threads, started lazily with a warm
 * minimum, one execution per worker at a time, FIFO queue beyond that. A worker whose run
 * holds its clock (a call waiting for a decision) costs no CPU and does not count toward
 * `size`. Implements the SandboxExecutor contract.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { cancelledOutcome } from './cancelled-outcome.ts';
import type { JobBridge, SandboxExecutor } from './executor.ts';
import { type EngineOptions, PoolWorker } from './pool-worker.ts';
import type { JobOutcome, JobSpec, WasmBuild } from './protocol.ts';
import { inspectWasm } from './wasm-facts.ts';

/** QuickJS's own recursion guard; below the worker's native stack so it trips first. */
export const GUEST_STACK_LIMIT_BYTES = 1_048_576;
export const DEFAULT_WARM_WORKERS = 1;

export interface PoolOptions {
  size: number;
  /** Workers started by start() and kept (at least) ready. */
  warm?: number;
  /** Memory cap of the instances prepared before the first job says otherwise. */
  memoryLimitBytes: number;
  /** Warnings (a worker that cannot restore instances) and the tests' restore fault. */
  engine?: EngineOptions;
}

interface Waiting {
  job: JobSpec;
  bridge: JobBridge;
  resolve: (outcome: JobOutcome) => void;
  timer: NodeJS.Timeout;
  signal?: AbortSignal;
  /** Takes the job out of the queue when its signal aborts before a worker took it. */
  onAbort?: () => void;
}

let compiled: Promise<WasmBuild> | undefined;

/** The QuickJS wasm, compiled once per process and shared with every worker. */
function quickjsModule(): Promise<WasmBuild> {
  compiled ??= (async () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    const bytes = await fs.promises.readFile(file);
    return { module: await WebAssembly.compile(bytes), ...inspectWasm(bytes) };
  })();
  return compiled;
}

export class SandboxPool implements SandboxExecutor {
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Waiting[] = [];
  private wasm: WasmBuild | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: PoolOptions) {}

  /** Compiles QuickJS and starts the warm workers; idempotent. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      this.wasm = await quickjsModule();
      this.topUp();
      await Promise.all([...this.workers].map((w) => w.ready));
    })();
    return this.starting;
  }

  private spawn(): PoolWorker {
    const worker = new PoolWorker(
      this.wasm!,
      this.options.memoryLimitBytes,
      GUEST_STACK_LIMIT_BYTES,
      { onGone: (gone) => this.onGone(gone), onHeld: () => this.dispatch() },
      this.options.engine,
    );
    this.workers.add(worker);
    return worker;
  }

  private topUp(): void {
    const warm = Math.min(this.options.warm ?? DEFAULT_WARM_WORKERS, this.options.size);
    while (!this.stopped && this.workers.size < warm) this.spawn();
  }

  private onGone(worker: PoolWorker): void {
    this.workers.delete(worker);
    this.topUp();
    this.dispatch();
  }

  async run(job: JobSpec, bridge: JobBridge, signal?: AbortSignal): Promise<JobOutcome> {
    if (signal?.aborted) return cancelledOutcome(signal);
    if (this.stopped) {
      return {
        ok: false,
        error: { code: 'EXECUTION_FAILED', message: 'the sandbox pool is stopped' },
      };
    }
    await this.start();
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          const at = this.queue.findIndex((w) => w.timer === timer);
          if (at < 0) return;
          this.queue.splice(at, 1);
          resolve({
            ok: false,
            error: { code: 'TIMEOUT', message: 'JavaScript execution timed out', stack: '' },
          });
        },
        Math.max(0, job.limits.deadlineMs - Date.now()),
      );
      const waiting: Waiting = { job, bridge, resolve, timer };
      if (signal) {
        waiting.signal = signal;
        waiting.onAbort = () => {
          const at = this.queue.indexOf(waiting);
          if (at < 0) return;
          this.queue.splice(at, 1);
          clearTimeout(timer);
          resolve(cancelledOutcome(signal));
        };
        signal.addEventListener('abort', waiting.onAbort, { once: true });
      }
      this.queue.push(waiting);
      this.dispatch();
    });
  }

  /** How each live worker prepares instances ('restore' or 'fresh'; undefined while starting). */
  engineModes(): Array<'restore' | 'fresh' | undefined> {
    return [...this.workers].map((w) => w.engineMode);
  }

  /** Live workers by state: starting, idle, busy (running a program), held (its program waits). */
  workerStates(): { starting: number; idle: number; busy: number; held: number } {
    const counts = { starting: 0, idle: 0, busy: 0, held: 0 };
    for (const worker of this.workers) {
      if (!worker.alive) continue;
      if (worker.held) counts.held++;
      else if (worker.busy) counts.busy++;
      else if (worker.engineMode === undefined) counts.starting++;
      else counts.idle++;
    }
    return counts;
  }

  /** An idle worker, preferring one whose next instance is already prepared. */
  private idleWorker(): PoolWorker | undefined {
    let idle: PoolWorker | undefined;
    for (const worker of this.workers) {
      if (!worker.alive || worker.busy) continue;
      if (worker.primed) return worker;
      idle ??= worker;
    }
    if (idle) return idle;
    if (this.workers.size - this.heldCount() < this.options.size) return this.spawn();
    return undefined;
  }

  private heldCount(): number {
    let held = 0;
    for (const worker of this.workers) if (worker.held) held++;
    return held;
  }

  /** Stops idle workers beyond `size` plus the held ones: those a hold made the pool start. */
  private retireSpares(): void {
    let spare = this.workers.size - this.heldCount() - this.options.size;
    for (const worker of [...this.workers]) {
      if (spare <= 0) return;
      if (worker.busy || !worker.alive) continue;
      spare--;
      void worker.terminate();
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idleWorker();
      if (!worker) return;
      const waiting = this.queue.shift()!;
      clearTimeout(waiting.timer);
      if (waiting.onAbort) waiting.signal?.removeEventListener('abort', waiting.onAbort);
      worker.ready.then(
        () => this.runOn(worker, waiting),
        (error: unknown) =>
          waiting.resolve({
            ok: false,
            error: {
              code: 'EXECUTION_FAILED',
              message: `the sandbox worker failed to start: ${String(error)}`,
            },
          }),
      );
      // Reserve the worker now, before its ready promise settles.
      worker.reserve();
    }
  }

  private runOn(worker: PoolWorker, waiting: Waiting): void {
    worker.run(waiting.job, waiting.bridge, waiting.signal).then((outcome) => {
      waiting.resolve(outcome);
      this.dispatch();
      this.retireSpares();
    });
  }

  /** Terminates every worker; queued and running jobs end with EXECUTION_FAILED. Idempotent. */
  async stop(reason = 'the gateway is stopping'): Promise<void> {
    this.stopped = true;
    for (const waiting of this.queue.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.resolve({ ok: false, error: { code: 'EXECUTION_FAILED', message: reason } });
    }
    await Promise.all([...this.workers].map((w) => w.terminate(reason)));
    this.workers.clear();
  }
}
