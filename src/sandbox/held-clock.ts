/**
 * @module The host side of one run's clock (RunClock): counts the holds its bridge has open
 * and how long any was open, so the watchdog and the pool know the worker is waiting.
 */

export class HeldClock {
  private count = 0;
  private openedAtMs: number | undefined;
  private closedMs = 0;
  private ended = false;

  /** `onChange` hears every change of the count, with the count before it. */
  constructor(private readonly onChange: (count: number, before: number) => void) {}

  /** Opens a hold; the returned release closes it once, and does nothing after the run ended. */
  hold(): () => void {
    if (this.ended) return () => {};
    this.set(this.count + 1);
    let released = false;
    return () => {
      if (released || this.ended) return;
      released = true;
      this.set(this.count - 1);
    };
  }

  /** True while at least one hold is open. */
  get held(): boolean {
    return this.count > 0;
  }

  /** The sum of the intervals with a hold open, the open one counted up to now. */
  get heldTotalMs(): number {
    const open = this.openedAtMs === undefined ? 0 : Date.now() - this.openedAtMs;
    return this.closedMs + open;
  }

  /** The run is over: holds still open close now; later holds and releases do nothing. */
  end(): void {
    if (this.ended) return;
    if (this.count > 0) this.set(0);
    this.ended = true;
  }

  private set(count: number): void {
    const before = this.count;
    const now = Date.now();
    if (count > 0 && this.openedAtMs === undefined) this.openedAtMs = now;
    if (count === 0 && this.openedAtMs !== undefined) {
      this.closedMs += now - this.openedAtMs;
      this.openedAtMs = undefined;
    }
    this.count = count;
    this.onChange(count, before);
  }
}
