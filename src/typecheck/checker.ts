/**
 * @module The type checker seen from the gateway: one worker thread with a warm TypeScript
 * language service, started on the first check, that takes checks one at a time from bounded
 * queues, one per caller, served in turn (the caller served least recently goes next), so one
 * caller's flood delays another's check by at most the check under way. Each check is bounded
 * in time (cancelled, then the worker terminated if it does not stop) and the worker in memory
 * (its heap limit); a check that cannot finish, cannot start within its wait, or whose answer
 * was already sent is abandoned with a diagnostic that says why. Nothing here runs TypeScript
 * on the event loop.
 */
import { Worker } from 'node:worker_threads';
import { metrics } from '../telemetry/metrics.ts';
import type { Logger } from '../util/logger.ts';
import type { CheckMessage, ScopeInput, TypeDiagnostic, WorkerToHost } from './protocol.ts';

export interface TypeCheckerOptions {
  /** How long one check may take once the worker takes it. */
  timeoutMs: number;
  /** How long the worker may take to load TypeScript and its library. */
  startupTimeoutMs: number;
  /** The worker's V8 heap limit. */
  heapMb: number;
  /** One caller's checks waiting beyond this many are abandoned at once (other callers' are not). */
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
  /**
   * When true (`execute`, whose programs do not say their language), a program with no
   * TypeScript syntax is checked as JavaScript (as `checkJs` does).
   */
  detectJavascript?: boolean;
  /** Whose check it is (`admin`, `token:<name>`): each caller has its own queue. Absent: one shared. */
  caller?: string;
  /**
   * How long the check may wait behind other checks before it starts (under `error`,
   * `code_execution_typecheck_wait_ms`); past it, it is abandoned. Absent: it waits its turn.
   * Time the worker spends starting does not count (no other check delays it then).
   */
  waitMs?: number;
  /** Aborted when the check's answer is no longer wanted: a check still waiting is dropped. */
  signal?: AbortSignal;
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

/** A check in a caller's queue, with the timer of its wait and what drops it. */
interface Waiting extends Pending {
  caller: string;
  waitTimer?: NodeJS.Timeout;
  /** Removes the abort listener (the check left the queue). */
  unlisten?: () => void;
}

/** Callers remembered as served beyond their queues; one forgotten counts as served long ago. */
const MAX_CALLERS_REMEMBERED = 256;

/** Why a check whose answer was already sent (under `warn`) was dropped. */
const ANSWERED = 'its answer was already sent';

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
  /** Waiting checks per caller, oldest first; a caller with none has no entry. */
  private readonly queues = new Map<string, Waiting[]>();
  /** The serial of each caller's last check sent to the worker. */
  private readonly lastServed = new Map<string, number>();
  private servedSerial = 0;
  /** The worker is up and taking checks (waits are timed only then). */
  private warm = false;
  /** The check in the worker; `sentAt` (performance.now()) times it for the metrics. */
  private current: (Pending & { timer: NodeJS.Timeout; sentAt: number }) | undefined;
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
    if (request.signal?.aborted) return Promise.resolve(abandonedResult(ANSWERED));
    const caller = request.caller ?? '';
    const queue = this.queues.get(caller) ?? [];
    if (queue.length >= this.options.maxQueued) {
      return Promise.resolve(
        abandonedResult(`the type checker is busy (${queue.length} checks waiting)`),
      );
    }
    return new Promise((resolve) => {
      const waiting: Waiting = { id: this.nextId++, request, resolve, caller };
      queue.push(waiting);
      this.queues.set(caller, queue);
      const { signal } = request;
      if (signal) {
        const drop = () => this.drop(waiting, abandonedResult(ANSWERED));
        signal.addEventListener('abort', drop, { once: true });
        waiting.unlisten = () => signal.removeEventListener('abort', drop);
      }
      if (this.warm) this.armWait(waiting);
      void this.pump();
    });
  }

  /** The worker exists (a first check started it): a runtime that checks nothing never starts it. */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** A check is under way in the worker. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** How many checks are waiting (not the one under way). */
  get waiting(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /** Under `warn`, how long a finished program's answer waits for its check. */
  get warnWaitMs(): number {
    return this.options.warnWaitMs;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const queue of [...this.queues.values()]) {
      for (const waiting of [...queue])
        this.drop(waiting, abandonedResult('the gateway is stopping'));
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
          this.warm = true;
          for (const queue of this.queues.values()) {
            for (const waiting of queue) this.armWait(waiting);
          }
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
        this.warm = false;
        this.finishCurrent(
          abandonedResult('the type checker stopped (out of memory, or the check took too long)'),
        );
        void this.pump();
      });
    });
    return this.ready;
  }

  private async pump(): Promise<void> {
    if (this.current || this.queues.size === 0 || this.stopped) return;
    const started = await this.start();
    if (this.current || this.queues.size === 0) return;
    const next = this.next()!;
    this.leave(next);
    if (!started) {
      next.resolve(abandonedResult('the type checker could not start'));
      return void this.pump();
    }
    this.lastServed.delete(next.caller);
    this.lastServed.set(next.caller, ++this.servedSerial);
    this.forgetIdleCallers();
    this.send(next);
  }

  /** The oldest check of the caller served least recently (a caller never served first; ties: first to queue). */
  private next(): Waiting | undefined {
    let best: Waiting[] | undefined;
    let bestServed = Number.POSITIVE_INFINITY;
    for (const [caller, queue] of this.queues) {
      const served = this.lastServed.get(caller) ?? 0;
      if (served < bestServed) {
        best = queue;
        bestServed = served;
      }
    }
    return best?.[0];
  }

  /** Takes a check out of its caller's queue, its wait timer and abort listener with it. */
  private leave(waiting: Waiting): void {
    clearTimeout(waiting.waitTimer);
    waiting.unlisten?.();
    const queue = this.queues.get(waiting.caller);
    const at = queue?.indexOf(waiting) ?? -1;
    if (!queue || at === -1) return;
    queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(waiting.caller);
  }

  /** Abandons a check that is still waiting (one already sent finishes on its own). */
  private drop(waiting: Waiting, result: CheckResult): void {
    if (!this.queues.get(waiting.caller)?.includes(waiting)) return;
    this.leave(waiting);
    waiting.resolve(result);
  }

  /**
   * Times a check's wait, from when the worker is up: past it the check is abandoned, saying
   * how long it waited and behind how many checks. A wait that ends while the worker restarts
   * is timed again once it is up.
   */
  private armWait(waiting: Waiting): void {
    const ms = waiting.request.waitMs;
    if (ms === undefined || waiting.waitTimer) return;
    waiting.waitTimer = setTimeout(() => {
      waiting.waitTimer = undefined;
      if (!this.warm) return;
      const ahead = this.waiting - 1 + (this.current ? 1 : 0);
      this.drop(
        waiting,
        abandonedResult(
          `it could not start within ${ms} ms (code_execution_typecheck_wait_ms): the type checker was busy with ${ahead} other ${ahead === 1 ? 'check' : 'checks'}`,
        ),
      );
    }, ms);
  }

  /** Keeps the served-order memory bounded: callers with nothing waiting are forgotten first. */
  private forgetIdleCallers(): void {
    for (const caller of this.lastServed.keys()) {
      if (this.lastServed.size <= MAX_CALLERS_REMEMBERED) return;
      if (!this.queues.has(caller)) this.lastServed.delete(caller);
    }
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
        ...(request.detectJavascript ? { detectJavascript: true } : {}),
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
    this.current = { ...pending, sentScope: withScope, timer, sentAt: performance.now() };
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
    metrics().typecheckEnded(performance.now() - current.sentAt);
    current.resolve(result);
  }

  private async terminate(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.warm = false;
    if (worker) await worker.terminate();
  }
}
