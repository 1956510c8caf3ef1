/**
 * @module The wall-clock deadline of one run: the job's, pushed back by the time the worker
 * spent blocked on the host while the host held the run's clock (a call waiting for a
 * decision). The guest's own compute always counts.
 */

export class RunDeadline {
  /** Time spent blocked on the host while a hold was open. */
  private pausedMs = 0;
  /** Set while a short grace replaces the deadline (reading an error after the run failed). */
  private graceUntilMs: number | undefined;

  constructor(private readonly jobDeadlineMs: number) {}

  /** Epoch milliseconds after which the guest is interrupted. */
  get atMs(): number {
    return this.graceUntilMs ?? this.jobDeadlineMs + this.pausedMs;
  }

  get passed(): boolean {
    return Date.now() >= this.atMs;
  }

  /** Adds time spent blocked on the host while the clock was held (`ceilingMs` at most in all). */
  pause(ms: number, ceilingMs = Number.POSITIVE_INFINITY): void {
    this.pausedMs = Math.min(this.pausedMs + ms, ceilingMs);
  }

  /** Runs `fn` held to `graceMs` from now instead of the deadline. */
  withGrace<T>(graceMs: number, fn: () => T): T {
    const saved = this.graceUntilMs;
    this.graceUntilMs = Date.now() + graceMs;
    try {
      return fn();
    } finally {
      this.graceUntilMs = saved;
    }
  }
}
