/**
 * @module Spin-then-sleep hand-offs between the gateway thread and a sandbox worker, shared
 * by both sides. On a VM, waking a thread that sleeps costs 30-100 us (its idle vCPU halted;
 * the wake is an inter-processor interrupt and a VM exit), most of what a sync `call_tool`
 * added to the upstream's round trip. A thread that expects the other side's answer within a
 * few hundred microseconds polls the shared counter for a short, adaptive time before it
 * sleeps. Bounds: docs/engine.md, "Hand-offs".
 */

/** Slots of a worker's shared signal (Int32Array). */
export const SIGNAL = {
  /** Bumped by the host after each reply it posts on the call port. */
  replies: 0,
  /** Bumped by the worker after each message it posts on the call port. */
  posted: 1,
  /** 1 while the worker holds a prepared instance (set by the worker, cleared by the host). */
  prepared: 2,
  /** Bumped by the host after each job it posts on the worker's own port. */
  jobs: 3,
} as const;
export const SIGNAL_BYTES = 16;

/** Waits are polled in rounds of this many reads between clock reads. */
const POLLS_PER_CLOCK_READ = 32;
/** Weight of the newest wait in the running estimate. */
const ESTIMATE_WEIGHT = 0.25;
/** Headroom over twice the typical wait, for the spread of short waits. */
const SLACK_US = 20;

/** Most waits skipped without polling after polls that missed (doubling per miss in a row). */
const MAX_BACKOFF_WAITS = 64;

/**
 * How long to poll before sleeping, learned from the waits seen: about twice the typical
 * wait when that is short, nothing when waits are long (a wake then costs little in
 * proportion). Polls that miss back off: on a busy machine the poller takes the core the
 * other side needs, so it sleeps for the next 2, 4, ... 64 waits.
 */
export class AdaptiveSpin {
  private typicalUs: number;
  private missesInARow = 0;
  private skips = 0;

  constructor(
    private readonly maxUs: number,
    startUs = maxUs / 4,
  ) {
    this.typicalUs = startUs;
  }

  /** Microseconds to poll before the next sleep; 0 when waits have been long or polls missed. */
  private budgetUs(): number {
    if (this.skips > 0) {
      this.skips--;
      return 0;
    }
    if (this.maxUs <= 0 || this.typicalUs > this.maxUs / 2) return 0;
    return Math.min(this.maxUs, 2 * this.typicalUs + SLACK_US);
  }

  /** Polls `changed` for this wait's budget (at most `capUs`); true as soon as it holds. */
  poll(changed: () => boolean, capUs = this.maxUs): boolean {
    const budgetUs = Math.min(this.budgetUs(), capUs);
    if (budgetUs <= 0) return false;
    if (spinUntil(changed, budgetUs)) {
      this.missesInARow = 0;
      return true;
    }
    this.missesInARow++;
    this.skips = Math.min(2 ** this.missesInARow, MAX_BACKOFF_WAITS);
    return false;
  }

  /** Records how long a wait took (clipped, so one long wait stops polling for a few waits, not for good). */
  observe(waitedUs: number): void {
    const clipped = Math.min(waitedUs, 4 * this.maxUs);
    this.typicalUs += (clipped - this.typicalUs) * ESTIMATE_WEIGHT;
  }
}

/** Polls `changed` for up to `budgetUs`; true as soon as it holds. */
function spinUntil(changed: () => boolean, budgetUs: number): boolean {
  if (budgetUs <= 0) return changed();
  const until = performance.now() + budgetUs / 1000;
  do {
    for (let i = 0; i < POLLS_PER_CLOCK_READ; i++) if (changed()) return true;
  } while (performance.now() < until);
  return changed();
}

/**
 * Pool-wide cap on workers polling at once (an Int32Array slot on memory every worker
 * shares): never more pollers than cores minus one, so a poller never takes the core the
 * thread it waits for needs.
 */
export class SpinGate {
  private readonly count: Int32Array;

  constructor(
    shared: SharedArrayBuffer,
    private readonly max: number,
  ) {
    this.count = new Int32Array(shared);
  }

  /** Takes a polling slot; false when every slot is taken. */
  enter(): boolean {
    if (this.max <= 0) return false;
    if (Atomics.add(this.count, 0, 1) < this.max) return true;
    Atomics.sub(this.count, 0, 1);
    return false;
  }

  leave(): void {
    Atomics.sub(this.count, 0, 1);
  }
}
