/**
 * @module The type checker seen from the gateway: one worker thread with a warm TypeScript
 * language service, started on the first check, that takes checks one at a time from a
 * bounded queue. Each check is bounded in time (cancelled, then the worker terminated if it
 * does not stop) and the worker in memory (its heap limit); a check that cannot finish is
 * abandoned with a diagnostic that says why. Nothing here runs TypeScript on the event loop.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../util/logger.ts';
import type { CheckMessage, ScopeInput, TypeDiagnostic, WorkerToHost } from './protocol.ts';

export interface TypeCheckerOptions {
  /** How long one check may take once the worker takes it. */
  timeoutMs: number;
  /** How long the worker may take to load TypeScript and its library. */
  startupTimeoutMs: number;
  /** The worker's V8 heap limit. */
  heapMb: number;
  /** Checks waiting beyond this many are abandoned at once. */
  maxQueued: number;
  /**
   * Under `warn`, how long a finished program's answer waits for its check: the checker is
   * shared, and a queue of slow checks must not hold every caller's answers. Long enough for
   * a cold start on a loaded machine (the first check starts the worker).
   */
  warnWaitMs: number;
  logger?: Logger;
}

export const TYPECHECK_DEFAULTS: TypeCheckerOptions = {
  timeoutMs: 5_000,
  startupTimeoutMs: 30_000,
  heapMb: 256,
  maxQueued: 64,
  warnWaitMs: 10_000,
};

/**
 * The worker's young generation: TypeScript allocates many short-lived objects, and V8 would
 * grow the semispaces (and the process's RSS) by tens of megabytes for them.
 */
const YOUNG_GENERATION_MB = 8;

/** Scope keys remembered as sent (the worker keeps 16; one it dropped is asked for again). */
const MAX_SCOPES_SENT = 64;

/** After a cancelled check's time, how long the worker has to stop before it is terminated. */
const STOP_GRACE_MS = 1_000;

/** One program to check against one scope. */
export interface CheckRequest {
  /** Names the scope: the same key always means the same declarations. */
  scopeKey: string;
  /** What the scope's declarations are written from, asked only when the worker does not have them. */
  scope: () => ScopeInput;
  source: string;
  javascript: boolean;
}

export interface CheckResult {
  diagnostics: TypeDiagnostic[];
  /** How many there were (diagnostics lists the first ones). */
  total: number;
  /** Why the program was not checked, when it was not. */
  abandoned?: string;
}

interface Pending {
  id: number;
  request: CheckRequest;
  resolve: (result: CheckResult) => void;
  /** The scope was sent with this check already (a need-scope answer then is a failure). */
  sentScope?: boolean;
}

/** The diagnostic of a check that did not finish: at the program's start, code 0 (codemux's own). */
export function abandonedResult(why: string): CheckResult {
  return {
    diagnostics: [{ line: 1, column: 1, code: 0, message: `the type check was abandoned: ${why}` }],
    total: 1,
    abandoned: why,
  };
}

export class TypeChecker {
  private worker: Worker | undefined;
  private ready: Promise<boolean> | undefined;
  private readonly queue: Pending[] = [];
  private current: (Pending & { timer: NodeJS.Timeout }) | undefined;
  private readonly scopesSent = new Set<string>();
  private nextId = 1;
  private stopped = false;

  constructor(
    private readonly workerUrl: URL,
    private readonly options: TypeCheckerOptions = TYPECHECK_DEFAULTS,
  ) {}

  /** The diagnostics of one program; never throws (a check that cannot finish is abandoned). */
  check(request: CheckRequest): Promise<CheckResult> {
    if (this.stopped) return Promise.resolve(abandonedResult('the gateway is stopping'));
    if (this.queue.length >= this.options.maxQueued) {
      return Promise.resolve(
        abandonedResult(`the type checker is busy (${this.queue.length} checks waiting)`),
      );
    }
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, request, resolve });
      void this.pump();
    });
  }

  /** Under `warn`, how long a finished program's answer waits for its check. */
  get warnWaitMs(): number {
    return this.options.warnWaitMs;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const pending of this.queue.splice(0)) {
      pending.resolve(abandonedResult('the gateway is stopping'));
    }
    this.finishCurrent(abandonedResult('the gateway is stopping'));
    await this.terminate();
  }

  private start(): Promise<boolean> {
    if (this.ready) return this.ready;
    const worker = new Worker(this.workerUrl, {
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.heapMb,
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    this.worker = worker;
    this.scopesSent.clear();
    this.ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.options.logger?.warn('the type checker did not start in time; it is restarted');
        void this.terminate();
        resolve(false);
      }, this.options.startupTimeoutMs);
      worker.on('message', (message: WorkerToHost) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(true);
          return;
        }
        this.answer(message);
      });
      worker.on('error', (error) => {
        this.options.logger?.warn({ err: error.message }, 'the type checker failed');
      });
      worker.on('exit', () => {
        clearTimeout(timer);
        resolve(false);
        if (this.worker !== worker) return;
        this.worker = undefined;
        this.ready = undefined;
        this.finishCurrent(
          abandonedResult('the type checker stopped (out of memory, or the check took too long)'),
        );
        void this.pump();
      });
    });
    return this.ready;
  }

  private async pump(): Promise<void> {
    if (this.current || this.queue.length === 0 || this.stopped) return;
    const started = await this.start();
    if (this.current || this.queue.length === 0) return;
    if (!started) {
      const pending = this.queue.shift()!;
      pending.resolve(abandonedResult('the type checker could not start'));
      return void this.pump();
    }
    this.send(this.queue.shift()!);
  }

  private send(pending: Pending): void {
    const { request } = pending;
    const withScope = !this.scopesSent.has(request.scopeKey) || pending.sentScope === false;
    let message: CheckMessage;
    try {
      message = {
        type: 'check',
        id: pending.id,
        scopeKey: request.scopeKey,
        source: request.source,
        javascript: request.javascript,
        timeoutMs: this.options.timeoutMs,
        ...(withScope ? { scope: request.scope() } : {}),
      };
    } catch (error) {
      pending.resolve(abandonedResult(`its declarations failed: ${(error as Error).message}`));
      return void this.pump();
    }
    if (withScope) this.rememberScope(request.scopeKey);
    const timer = setTimeout(() => {
      // Cancelled checks answer at once; one that does not is stuck: its worker goes.
      this.finishCurrent(abandonedResult(`it ran longer than ${this.options.timeoutMs} ms`));
      void this.terminate().then(() => this.pump());
    }, this.options.timeoutMs + STOP_GRACE_MS);
    this.current = { ...pending, sentScope: withScope, timer };
    this.worker!.postMessage(message);
  }

  /** The keys the worker was sent, newest last; as many as the worker keeps, and some more. */
  private rememberScope(key: string): void {
    this.scopesSent.delete(key);
    this.scopesSent.add(key);
    while (this.scopesSent.size > MAX_SCOPES_SENT) {
      this.scopesSent.delete(this.scopesSent.values().next().value!);
    }
  }

  private answer(message: WorkerToHost): void {
    const current = this.current;
    if (message.type === 'ready' || !current || message.id !== current.id) return;
    if (message.type === 'need-scope' && !current.sentScope) {
      clearTimeout(current.timer);
      this.current = undefined;
      this.send({ ...current, sentScope: false });
      return;
    }
    const result: CheckResult =
      message.type === 'checked'
        ? { diagnostics: message.diagnostics, total: message.total }
        : message.type === 'cancelled'
          ? abandonedResult(`it ran longer than ${this.options.timeoutMs} ms`)
          : abandonedResult(
              message.type === 'failed' ? message.message : 'the checker lost the declarations',
            );
    this.finishCurrent(result);
    void this.pump();
  }

  private finishCurrent(result: CheckResult): void {
    const current = this.current;
    if (!current) return;
    clearTimeout(current.timer);
    this.current = undefined;
    current.resolve(result);
  }

  private async terminate(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }
}
