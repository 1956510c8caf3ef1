/**
 * @module Runs one program on a prepared instance: binds the host hooks, evaluates with
 * top-level await, drives the guest's promise to the end while serving host replies, and
 * turns whatever happened into a JobOutcome. Never throws.
 */
import type { QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core';
import type {
  CallMessage,
  CallReply,
  GuestError,
  JobOutcome,
  JobSpec,
  LogLevel,
} from '../protocol.ts';
import { callHook, GuestThrew } from './guest-call.ts';
import { GuestClock } from './guest-clock.ts';
import {
  type Described,
  errorFrom,
  memoryLimitError,
  OUT_OF_MEMORY,
  TIMEOUT_MESSAGE,
  tooLargeGlobals,
} from './guest-errors.ts';
import type { HostLink } from './host-link.ts';
import { type Instance, memoryExhausted } from './instance.ts';
import { seedWords } from './random-seed.ts';
import { RunDeadline } from './run-deadline.ts';
import { serializeValue } from './serialize-value.ts';
import { cutToBytes } from './utf8.ts';

const EVAL_TYPE_GLOBAL = 0;
/** QuickJS's JS_EVAL_FLAG_ASYNC: top-level await in a script; resolves to {value: completion}. */
const EVAL_FLAG_ASYNC = 1 << 7;
/** Extra time granted to read an error object after the program failed. */
const DESCRIBE_GRACE_MS = 25;
const LOG_CUT_MARKER = '…[truncated]';
const LOG_LEVELS = new Set<string>(['log', 'info', 'warn', 'error', 'debug']);
class Aborted extends Error {}

export class JobRun {
  private aborted: GuestError | undefined;
  /** The job's deadline, pushed back by host waits while the clock is held. */
  private readonly deadline: RunDeadline;
  /** Async calls in flight: their guest promises, by call id. */
  private readonly asyncPending = new Map<number, QuickJSDeferredPromise>();
  private logLines = 0;
  private hostCalls = 0;
  private readonly startedMs = performance.now();
  /** Time spent blocked on host replies: not guest compute. */
  private waitedMs = 0;
  /** Characters of the largest call reply that entered the guest (named when memory runs out). */
  private largestReplyChars = 0;
  /** The guest's clock: replayed readings first, then live ones, shipped with the next message. */
  private readonly clock: GuestClock;

  constructor(
    private readonly instance: Instance,
    private readonly job: JobSpec,
    private readonly execId: number,
    private readonly link: HostLink,
  ) {
    this.deadline = new RunDeadline(job.limits.deadlineMs);
    this.clock = new GuestClock(job.replay?.clock);
  }

  /** `message` with the live clock readings taken since the previous message, if any. */
  withClock<M extends CallMessage>(message: M): M {
    const clock = this.clock.take();
    return clock ? { ...message, clock } : message;
  }

  private get timedOut(): boolean {
    return this.deadline.passed;
  }

  private checkAlive(): void {
    if (this.aborted) throw new Aborted(this.aborted.message);
    if (this.timedOut) throw new Aborted(TIMEOUT_MESSAGE);
  }

  private limit(message: string): never {
    this.aborted = { code: 'RESOURCE_LIMIT_EXCEEDED', message, stack: '' };
    throw new Aborted(message);
  }

  /** Counts one tool, catalog or log call against max_host_calls (execute dialect). */
  private countHostCall(): void {
    const max = this.job.limits.maxHostCalls;
    if (max === undefined) return;
    this.hostCalls++;
    if (this.hostCalls > max)
      this.limit(`host-call budget exceeded: more than ${max} tool, catalog and log calls`);
  }

  /** True once guest compute (wall time minus host waits) is over budget; records why. */
  private computeExceeded(): boolean {
    const budget = this.job.limits.computeMs;
    if (budget === undefined || this.aborted) return false;
    if (performance.now() - this.startedMs - this.waitedMs <= budget) return false;
    this.aborted = {
      code: 'RESOURCE_LIMIT_EXCEEDED',
      message: `compute-time budget exceeded: more than ${budget} ms of guest CPU`,
      stack: '',
    };
    return true;
  }

  private wait(pick: () => CallReply | undefined): CallReply | undefined {
    const started = performance.now();
    try {
      return this.link.waitFor(this.deadline, pick);
    } finally {
      this.waitedMs += performance.now() - started;
    }
  }

  private settleReply(reply: CallReply): string {
    if (reply.type === 'fatal') {
      this.aborted = { code: reply.error.code, message: reply.error.message, stack: '' };
      throw new Aborted(reply.error.message);
    }
    this.largestReplyChars = Math.max(this.largestReplyChars, reply.envelopeJson.length);
    return reply.envelopeJson;
  }

  private waitSync(callId: number): string {
    const reply = this.wait(() => this.link.take(this.execId, callId));
    if (!reply) throw new Aborted(TIMEOUT_MESSAGE);
    return this.settleReply(reply);
  }

  private bindHost(): void {
    const { link, execId } = this;
    const post = (message: CallMessage) => link.post(this.withClock(message));
    this.instance.host = {
      call: (requestJson) => {
        this.checkAlive();
        this.countHostCall();
        const callId = link.newCallId();
        post({ type: 'call', execId, callId, dialect: 'sync', requestJson });
        return this.waitSync(callId);
      },
      batch: (batchJson) => {
        this.checkAlive();
        this.countHostCall();
        const callId = link.newCallId();
        post({ type: 'batch', execId, callId, batchJson });
        return this.waitSync(callId);
      },
      callAsync: (requestJson, dialect) => {
        this.checkAlive();
        this.countHostCall();
        const callId = link.newCallId();
        post({ type: 'call', execId, callId, dialect, requestJson });
        const deferred = this.instance.context.newPromise();
        this.asyncPending.set(callId, deferred);
        return deferred.handle;
      },
      log: (level, line) => {
        this.countHostCall();
        const limits = this.job.limits;
        if (this.logLines >= limits.maxLogLines || !LOG_LEVELS.has(level)) return;
        this.logLines++;
        const cut = cutToBytes(line, limits.maxLogLineBytes, LOG_CUT_MARKER);
        post({ type: 'log', execId, level: level as LogLevel, line: cut });
      },
      now: () => this.clock.now(),
    };
    this.instance.shouldInterrupt = () =>
      this.aborted !== undefined || this.timedOut || this.computeExceeded();
  }

  private callHook(name: keyof Instance['hooks'], ...args: QuickJSHandle[]): QuickJSHandle {
    return callHook(this.instance, name, ...args);
  }

  /** Reads a guest exception; undefined when even that fails (out of memory, a hostile getter). */
  private describe(error: QuickJSHandle): Described | undefined {
    return this.deadline.withGrace(DESCRIBE_GRACE_MS, () => this.describeNow(error));
  }

  private describeNow(error: QuickJSHandle): Described | undefined {
    const { context } = this.instance;
    const text = (name: string) => {
      const prop = context.getProp(error, name);
      try {
        return context.typeof(prop) === 'string' ? context.getString(prop) : '';
      } finally {
        prop.dispose();
      }
    };
    try {
      const flag = this.callHook('isError', error);
      const isError = context.dump(flag) === true;
      flag.dispose();
      if (isError)
        return { isError, name: text('name'), message: text('message'), stack: text('stack') };
      const value =
        context.typeof(error) === 'string'
          ? context.getString(error)
          : JSON.stringify(context.dump(error));
      return { isError, name: '', message: value ?? String(value), stack: '' };
    } catch {
      return undefined;
    }
  }

  private memoryError(): GuestError {
    return memoryLimitError(this.instance.memoryLimitBytes, this.largestReplyChars);
  }

  private classify(error: QuickJSHandle, phase: 'compile' | 'run'): GuestError {
    if (this.aborted) return this.aborted;
    if (this.timedOut) return { code: 'TIMEOUT', message: TIMEOUT_MESSAGE, stack: '' };
    const d = this.describe(error);
    if (!d) {
      return memoryExhausted(this.instance)
        ? this.memoryError()
        : { code: 'EXECUTION_FAILED', message: 'The program failed with an unreadable error' };
    }
    if (d.isError && d.name === 'InternalError' && OUT_OF_MEMORY.test(d.message)) {
      return this.memoryError();
    }
    if (
      !d.isError &&
      (d.message === 'null' || d.message === '') &&
      memoryExhausted(this.instance)
    ) {
      return this.memoryError();
    }
    if (d.isError && d.name === 'InternalError' && d.message === 'interrupted') {
      return { code: 'TIMEOUT', message: TIMEOUT_MESSAGE, stack: '' };
    }
    if (phase === 'compile') return errorFrom('SYNTAX_ERROR', d, this.job.filename, true);
    return errorFrom('RUNTIME_ERROR', d, this.job.filename);
  }

  /** An exception thrown by the engine itself (a wasm trap, the native stack). */
  private hostFault(error: unknown): GuestError {
    if (this.aborted) return this.aborted;
    if (this.timedOut) return { code: 'TIMEOUT', message: TIMEOUT_MESSAGE, stack: '' };
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return { code: 'RUNTIME_ERROR', message: 'InternalError: stack overflow', stack: '' };
    }
    if (memoryExhausted(this.instance)) return this.memoryError();
    return {
      code: 'EXECUTION_FAILED',
      message: `The sandbox failed: ${(error as Error)?.message ?? String(error)}`,
    };
  }

  /** Settles one arrived async reply in the guest; false when none has arrived by the deadline. */
  private settleAsync(wait: boolean): boolean {
    const pick = () => this.link.takeAny(this.execId, this.asyncPending.keys());
    const reply = wait ? this.wait(pick) : pick();
    if (!reply) return false;
    const deferred = this.asyncPending.get(reply.callId)!;
    this.asyncPending.delete(reply.callId);
    const json = this.settleReply(reply);
    const { context } = this.instance;
    const text = context.newString(json);
    const envelope = this.callHook('parse', text);
    text.dispose();
    deferred.resolve(envelope);
    envelope.dispose();
    deferred.dispose();
    return true;
  }

  /**
   * Parses the globals' JSON in the guest: the worker never holds them as values, and the guest
   * is the exact judge of what fits. A text that does not is GLOBALS_TOO_LARGE, before any of
   * the program runs. The same call seeds Math.random with the job's seed (one crossing less).
   */
  private setGlobals(): GuestError | undefined {
    const { context } = this.instance;
    const texts = [
      context.newString(this.job.globalsJson),
      context.newString(JSON.stringify(this.job.dateGlobals ?? [])),
    ];
    const handles = [...texts, ...seedWords(this.job.seed).map((w) => context.newNumber(w))];
    let failure: QuickJSHandle | undefined;
    try {
      if (texts.some((h) => context.typeof(h) !== 'string'))
        return tooLargeGlobals('out of memory');
      this.callHook('setGlobals', ...handles).dispose();
      return undefined;
    } catch (error) {
      if (!(error instanceof GuestThrew)) throw error;
      failure = error.handle;
    } finally {
      for (const h of handles) if (h.alive) h.dispose();
    }
    // The text is freed: the failure can be read.
    try {
      if (this.aborted || this.timedOut) return this.classify(failure, 'run');
      const d = this.describe(failure);
      if (d && /stack overflow/.test(d.message)) return tooLargeGlobals('stack overflow');
      if (!d || OUT_OF_MEMORY.test(d.message) || memoryExhausted(this.instance))
        return tooLargeGlobals('out of memory');
      return this.classify(failure, 'run');
    } finally {
      failure.dispose();
    }
  }

  /** Drives the program's promise until it settles; returns the outcome. */
  private drive(promise: QuickJSHandle): JobOutcome {
    const { context, runtime } = this.instance;
    for (;;) {
      const jobs = runtime.executePendingJobs(-1);
      if (jobs.error) jobs.error.dispose();
      if (this.aborted || this.timedOut)
        return { ok: false, error: this.classify(context.undefined, 'run') };
      const state = context.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        const value = context.getProp(state.value, 'value');
        state.value.dispose();
        return serializeValue(this.instance, value, this.job.limits);
      }
      if (state.type === 'rejected') {
        return { ok: false, error: this.classify(state.error, 'run') };
      }
      if (this.settleAsync(false)) continue;
      if (this.asyncPending.size === 0) {
        return {
          ok: false,
          error: {
            code: 'RUNTIME_ERROR',
            message:
              'The program awaits a promise that can never settle (no tool call is in flight)',
            stack: '',
          },
        };
      }
      if (!this.settleAsync(true)) {
        return { ok: false, error: { code: 'TIMEOUT', message: TIMEOUT_MESSAGE, stack: '' } };
      }
    }
  }

  run(): JobOutcome {
    const { context } = this.instance;
    try {
      this.bindHost();
      for (const name of this.job.hide ?? []) {
        context
          .unwrapResult(context.evalCode(`delete globalThis[${JSON.stringify(name)}]`))
          .dispose();
      }
      for (const name of this.job.undefinedGlobals ?? [])
        context.setProp(context.global, name, context.undefined);
      const refused = this.setGlobals();
      if (refused) return { ok: false, error: refused };
      // With the async flag, a synchronous failure is a compile error; runtime errors reject.
      const evaluated = context.evalCode(
        this.job.code,
        this.job.filename,
        EVAL_TYPE_GLOBAL | EVAL_FLAG_ASYNC,
      );
      if (evaluated.error) return { ok: false, error: this.classify(evaluated.error, 'compile') };
      return this.drive(evaluated.value);
    } catch (error) {
      if (error instanceof Aborted)
        return { ok: false, error: this.classify(context.undefined, 'run') };
      if (error instanceof GuestThrew) {
        try {
          return { ok: false, error: this.classify(error.handle, 'run') };
        } finally {
          error.handle.dispose();
        }
      }
      return { ok: false, error: this.hostFault(error) };
    }
  }
}
