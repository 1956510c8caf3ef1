/** @module Per-server concurrency: at most `max` calls in flight, `queueSize` waiting, the rest shed. */

const NO_LIMIT_RELEASE = () => {};

export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number | undefined,
    private readonly queueSize: number,
  ) {}

  /** A slot's release function when one is free now (no limit, or fewer than max in flight), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.max === undefined) return NO_LIMIT_RELEASE;
    if (this.active >= this.max) return undefined;
    this.active++;
    return this.releaser();
  }

  /**
   * Takes a slot: resolves with a release function, or with undefined when the queue is
   * full (QUEUE_FULL). An aborted wait leaves the queue and resolves undefined.
   */
  async acquire(signal?: AbortSignal): Promise<(() => void) | undefined> {
    const now = this.tryAcquire();
    if (now) return now;
    if (this.waiting.length >= this.queueSize) return undefined;
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(wake);
    });
  }

  /** Wakes every waiter (they proceed and see their execution has ended). */
  drain(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }
}
