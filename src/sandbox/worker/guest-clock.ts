/**
 * @module The clock one run's guest reads (Date.now(), new Date(), Date()): answered from the
 * replayed run's readings in order while they last, then live. Live readings are kept until
 * the next message to the host carries them, so a reading costs no round trip. Readings are
 * run-length encoded: a negative number -n after a reading says it was read n more times in a
 * row (a loop that polls the clock reads the same millisecond thousands of times; the journal
 * and the worker's memory hold one pair per millisecond, not one number per read).
 */

/** The readings an encoded list stands for, one number each (tests; tools). */
export function decodeReadings(encoded: readonly number[]): number[] {
  const readings: number[] = [];
  for (const n of encoded) {
    if (n >= 0) readings.push(n);
    else for (let i = 0; i < -n; i++) readings.push(readings[readings.length - 1]!);
  }
  return readings;
}

export class GuestClock {
  /** Where the replay stands: the next element, the value being repeated and how often still. */
  private at = 0;
  private repeat = 0;
  private value = 0;
  private live: number[] = [];
  private last: number | undefined;

  constructor(private readonly replay: readonly number[] = []) {}

  /** One reading, in epoch milliseconds. */
  now(): number {
    const replayed = this.replayed();
    if (replayed !== undefined) return replayed;
    const reading = Date.now();
    if (reading === this.last) {
      const end = this.live.length - 1;
      if (this.live[end]! < 0) this.live[end]!--;
      else this.live.push(-1);
    } else {
      this.live.push(reading);
      this.last = reading;
    }
    return reading;
  }

  /** The next replayed reading, or undefined once the replay is used up. */
  private replayed(): number | undefined {
    if (this.repeat > 0) {
      this.repeat--;
      return this.value;
    }
    if (this.at >= this.replay.length) return undefined;
    const n = this.replay[this.at++]!;
    if (n >= 0) {
      this.value = n;
      return n;
    }
    this.repeat = -n - 1;
    return this.value;
  }

  /** The live readings taken since the last take, encoded, in order; undefined when none. */
  take(): number[] | undefined {
    if (this.live.length === 0) return undefined;
    const taken = this.live;
    this.live = [];
    // Each list stands alone: it starts with a reading, never with a repeat.
    this.last = undefined;
    return taken;
  }
}
