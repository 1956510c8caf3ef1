/**
 * @module Which call of a connection a server's request for input belongs to, and each call's
 * deadline, stopped while the call waits on a person's answer.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallOptions } from './types.ts';

/** One call in flight on a connection. */
export interface CallInFlight {
  readonly options: CallOptions;
  readonly deadline: CallDeadline;
  /** Aborts when the call has its answer (or failed): a question it left open is moot. */
  readonly ended?: AbortSignal;
}

const current = new AsyncLocalStorage<CallInFlight>();

/**
 * The calls in flight on one connection. A request for input is the call's whose async context
 * it arrives in (over HTTP, the call's own response stream), else the only call in flight;
 * with several in flight on a transport that does not say (stdio), nobody's.
 */
export class InFlightCalls {
  private readonly calls = new Set<CallInFlight>();

  /** Runs `send` as `call`: what arrives on its own streams is known to be its. */
  async run<T>(call: CallInFlight, send: () => Promise<T>): Promise<T> {
    this.calls.add(call);
    try {
      return await current.run(call, send);
    } finally {
      this.calls.delete(call);
    }
  }

  /** The call a request for input arriving now belongs to, when it can be told. */
  owner(): CallInFlight | undefined {
    const here = current.getStore();
    if (here && this.calls.has(here)) return here;
    if (this.calls.size === 1) return this.calls.values().next().value;
    return undefined;
  }
}

/** Runs `start` outside any call (a connect): the streams it opens must not carry the call that started it. */
export const outsideCalls = <T>(start: () => T): T => current.exit(start);

/** A call's time limit that stops while the call waits on input (a person answering is not the server being slow). */
export class CallDeadline {
  private timer: NodeJS.Timeout | undefined;
  private leftMs: number;
  private since = 0;
  private pauses = 0;
  private done = false;

  constructor(
    timeoutMs: number | undefined,
    private readonly expire: () => void,
  ) {
    this.leftMs = timeoutMs ?? Number.POSITIVE_INFINITY;
    this.arm();
  }

  private arm(): void {
    if (this.done || !Number.isFinite(this.leftMs)) return;
    this.since = Date.now();
    this.timer = setTimeout(() => {
      this.done = true;
      this.expire();
    }, this.leftMs);
  }

  /** Stops the clock until the returned function is called (pauses nest). */
  pause(): () => void {
    if (this.pauses++ === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.leftMs = Math.max(0, this.leftMs - (Date.now() - this.since));
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.pauses === 0) this.arm();
    };
  }

  clear(): void {
    this.done = true;
    clearTimeout(this.timer);
  }
}
