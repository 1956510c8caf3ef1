/**
 * @module One sandbox worker thread seen from the host: runs one job at a time, answers
 * its calls on the call port, tells the worker when the run's clock is held, and is
 * terminated by a watchdog when the guest is stuck in a builtin that ignores the interrupt.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { cancelledOutcome } from './cancelled-outcome.ts';
import type { BridgeReply, JobBridge } from './executor.ts';
import { HeldClock } from './held-clock.ts';
import {
  type CallMessage,
  type CallReply,
  type JobOutcome,
  type JobSpec,
  SIGNAL,
  SIGNAL_BYTES,
  type WasmBuild,
  type WorkerInit,
  type WorkerToHost,
} from './protocol.ts';
import { workerEntry } from './worker-url.ts';

/** How long past its deadline a job may take to report before its worker is terminated. */
export const WATCHDOG_GRACE_MS = 50;
/** While the run's clock is held its deadline keeps moving: the watchdog looks again after this long. */
const WATCHDOG_HELD_RECHECK_MS = 250;
const WORKER_HEAP_LIMIT_MB = 512;
/**
 * The worker's young generation: two 1 MiB semispaces (the size V8 starts them at, and its
 * smallest) and 1 MiB for new large objects. The guest's heap lives in wasm memory, so a worker
 * allocates little on the V8 heap; left free, V8 doubles the semispaces under load (3.3 MB
 * resident instead of 2 MB).
 */
const WORKER_YOUNG_GENERATION_MB = 3;
const WORKER_STACK_LIMIT_MB = 8;

interface Running {
  execId: number;
  bridge: JobBridge;
  resolve: (outcome: JobOutcome) => void;
  /** The job's own deadline; the time the clock was held is added to it. */
  deadlineMs: number;
  clock: HeldClock;
  watchdog: NodeJS.Timeout | undefined;
  /** The run left the pool's count (RunClock.leavePool): it no longer takes a worker's place. */
  outOfPool: boolean;
}

const TIMEOUT_OUTCOME: JobOutcome = {
  ok: false,
  error: { code: 'TIMEOUT', message: 'JavaScript execution timed out', stack: '' },
};

/** What the pool hears from one of its workers. */
export interface WorkerEvents {
  /** The worker is gone (exited, failed or terminated). */
  onGone(worker: PoolWorker): void;
  /** The worker's run now holds its clock: it waits for the host and costs no CPU. */
  onHeld(worker: PoolWorker): void;
}

/** How the worker prepares instances, and who hears when it cannot restore them. */
export interface EngineOptions {
  /** Told when a worker falls back to fresh instances, with the check that failed. */
  onWarning?: (message: string) => void;
  /** Tests only: weakens the restore so the worker's self-test must refuse it. */
  restoreFault?: WorkerInit['restoreFault'];
}

export class PoolWorker {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private running: Running | undefined;
  private reserved = false;
  private nextExecId = 1;
  private dead = false;
  /** Reported by the worker at start: instances restored in place, or fresh ones. */
  engineMode: 'restore' | 'fresh' | undefined;
  readonly ready: Promise<void>;

  constructor(
    wasm: WasmBuild,
    memoryLimitBytes: number,
    stackLimitBytes: number,
    private readonly events: WorkerEvents,
    private readonly engine: EngineOptions = {},
  ) {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(SIGNAL_BYTES);
    this.signal = new Int32Array(signal);
    this.port = channel.port1;
    const init: WorkerInit = {
      port: channel.port2,
      signal,
      wasm,
      stackLimitBytes,
      memoryLimitBytes,
      ...(engine.restoreFault ? { restoreFault: engine.restoreFault } : {}),
    };
    this.worker = new Worker(workerEntry(), {
      workerData: init,
      transferList: [channel.port2],
      resourceLimits: {
        maxOldGenerationSizeMb: WORKER_HEAP_LIMIT_MB,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
        stackSizeMb: WORKER_STACK_LIMIT_MB,
      },
      stdout: false,
      stderr: false,
    });
    this.ready = new Promise((resolve, reject) => {
      const onReady = (message: WorkerToHost) => {
        if (message.type !== 'ready') return;
        this.worker.off('message', onReady);
        resolve();
      };
      this.worker.on('message', onReady);
      this.worker.once('error', reject);
    });
    this.ready.catch(() => {});
    this.worker.on('message', (message: WorkerToHost) => this.onWorkerMessage(message));
    this.worker.on('error', (error: Error & { code?: string }) => this.onFault(error));
    this.worker.on('exit', () => this.onFault(new Error('the sandbox worker exited')));
    this.port.on('message', (message: CallMessage) => this.onCall(message));
  }

  get busy(): boolean {
    return this.reserved || this.running !== undefined;
  }

  /** Marks the worker taken for a job that will start once it is ready. */
  reserve(): void {
    this.reserved = true;
  }

  /** Idle with a prepared instance: a job sent now starts at once. */
  get primed(): boolean {
    return !this.busy && Atomics.load(this.signal, SIGNAL.prepared) === 1;
  }

  get alive(): boolean {
    return !this.dead;
  }

  /**
   * True while the running job's bridge holds its clock (the worker waits, at no CPU), or
   * once its run left the pool (it yielded): either way it does not count toward the size.
   */
  get held(): boolean {
    return this.running ? this.running.clock.held || this.running.outOfPool : false;
  }

  /**
   * Runs one job; resolves when the worker reports, with TIMEOUT when the watchdog fires, or
   * with CANCELLED when `signal` aborts (the thread is stopped at once: its CPU is freed).
   */
  run(job: JobSpec, bridge: JobBridge, signal?: AbortSignal): Promise<JobOutcome> {
    const execId = this.nextExecId++;
    if (signal?.aborted) {
      this.reserved = false;
      return Promise.resolve(cancelledOutcome(signal));
    }
    const onAbort = () => {
      if (this.running?.execId !== execId) return;
      this.finish(execId, cancelledOutcome(signal!));
      void this.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise<JobOutcome>((resolve) => {
      const clock: HeldClock = new HeldClock((count, before) => this.onClock(clock, count, before));
      const running: Running = {
        execId,
        bridge,
        resolve,
        deadlineMs: job.limits.deadlineMs,
        clock,
        watchdog: undefined,
        outOfPool: false,
      };
      this.running = running;
      this.reserved = false;
      try {
        bridge.bindClock?.({
          hold: () => clock.hold(),
          leavePool: () => {
            if (this.running !== running || running.outOfPool) return;
            running.outOfPool = true;
            this.events.onHeld(this);
          },
        });
      } catch (error) {
        this.finish(execId, {
          ok: false,
          error: {
            code: 'EXECUTION_FAILED',
            message: `binding the run's clock failed: ${String(error)}`,
          },
        });
        return;
      }
      this.armWatchdog(running, job.limits.deadlineMs + WATCHDOG_GRACE_MS - Date.now());
      Atomics.store(this.signal, SIGNAL.heldMs, 0);
      Atomics.store(this.signal, SIGNAL.prepared, 0);
      this.worker.postMessage({ type: 'execute', execId, job });
    }).finally(() => signal?.removeEventListener('abort', onAbort));
  }

  private finish(execId: number, outcome: JobOutcome): void {
    const running = this.running;
    if (!running || running.execId !== execId) return;
    clearTimeout(running.watchdog);
    this.running = undefined;
    running.clock.end();
    running.resolve(outcome);
  }

  /**
   * Publishes the held count to the worker, and wakes it if it waits: it re-reads the count at
   * once (a timed wait would otherwise count held time as wall time, an untimed one could
   * sleep past the release).
   */
  private onClock(clock: HeldClock, count: number, before: number): void {
    if (count === 0) Atomics.store(this.signal, SIGNAL.heldMs, Math.floor(clock.heldTotalMs));
    Atomics.store(this.signal, SIGNAL.held, count);
    Atomics.add(this.signal, SIGNAL.replies, 1);
    Atomics.notify(this.signal, SIGNAL.replies);
    if (before === 0 && count > 0) this.events.onHeld(this);
  }

  private armWatchdog(running: Running, delayMs: number): void {
    running.watchdog = setTimeout(() => this.onWatchdog(running.execId), Math.max(0, delayMs));
  }

  private onWorkerMessage(message: WorkerToHost): void {
    if (message.type === 'engine') {
      this.engineMode = message.mode;
      if (message.warning)
        this.engine.onWarning?.(`sandbox worker uses fresh instances: ${message.warning}`);
    }
  }

  /** The deadline moves by the time the clock was held, and never passes while it is held. */
  private onWatchdog(execId: number): void {
    const running = this.running;
    if (running?.execId !== execId) return;
    if (running.clock.held) {
      this.armWatchdog(running, WATCHDOG_HELD_RECHECK_MS);
      return;
    }
    const dueMs = running.deadlineMs + running.clock.heldTotalMs + WATCHDOG_GRACE_MS;
    if (dueMs > Date.now()) {
      this.armWatchdog(running, dueMs - Date.now());
      return;
    }
    this.finish(execId, TIMEOUT_OUTCOME);
    void this.terminate();
  }

  private onFault(error: Error & { code?: string }): void {
    if (this.running) {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.finish(this.running.execId, {
        ok: false,
        error: outOfMemory
          ? {
              code: 'MEMORY_LIMIT_EXCEEDED',
              message: 'The program exceeded the sandbox memory limit',
              stack: '',
            }
          : { code: 'EXECUTION_FAILED', message: `The sandbox worker failed: ${error.message}` },
      });
    }
    this.markGone();
  }

  private markGone(): void {
    if (this.dead) return;
    this.dead = true;
    this.port.close();
    this.events.onGone(this);
  }

  private reply(message: CallReply): void {
    if (this.dead) return;
    this.port.postMessage(message);
    Atomics.add(this.signal, SIGNAL.replies, 1);
    Atomics.notify(this.signal, SIGNAL.replies);
  }

  /** Hands the bridge the readings a message carries; a throw ends the run and stops the worker. */
  private deliverReadings(running: Running, clock: number[]): boolean {
    try {
      running.bridge.readings?.(clock);
      return true;
    } catch (error) {
      this.finish(running.execId, {
        ok: false,
        error: {
          code: 'EXECUTION_FAILED',
          message: `recording the run's clock readings failed: ${String(error)}`,
        },
      });
      void this.terminate();
      return false;
    }
  }

  private onCall(message: CallMessage): void {
    const running = this.running;
    if (!running || running.execId !== message.execId) return;
    if (message.clock && !this.deliverReadings(running, message.clock)) return;
    if (message.type === 'done') {
      this.finish(message.execId, message.outcome);
      return;
    }
    if (message.type === 'log') {
      running.bridge.log(message.level, message.line);
      return;
    }
    const pending =
      message.type === 'call'
        ? running.bridge.call(message.requestJson, message.dialect)
        : running.bridge.batch(message.batchJson);
    const { execId, callId } = message;
    const failed = (error: unknown) =>
      this.reply({
        type: 'fatal',
        execId,
        callId,
        error: { code: 'EXECUTION_FAILED', message: `host call failed: ${String(error)}` },
      });
    pending.then((answer: BridgeReply) => {
      // Encoding can throw (a value too deep or too long for JSON.stringify): that ends this
      // run, never the process as an unhandled rejection would.
      let reply: CallReply;
      try {
        reply =
          'fatal' in answer
            ? { type: 'fatal', execId, callId, error: answer.fatal }
            : {
                type: 'reply',
                execId,
                callId,
                envelopeJson: answer.envelopeJson ?? JSON.stringify(answer.envelope),
              };
      } catch (error) {
        failed(error);
        return;
      }
      this.reply(reply);
    }, failed);
  }

  /** Stops the thread at once (frees its CPU); a job still running ends with EXECUTION_FAILED and `reason`. Idempotent. */
  async terminate(reason = 'the sandbox worker was stopped'): Promise<void> {
    if (this.running)
      this.finish(this.running.execId, {
        ok: false,
        error: { code: 'EXECUTION_FAILED', message: reason },
      });
    this.markGone();
    await this.worker.terminate();
  }
}
