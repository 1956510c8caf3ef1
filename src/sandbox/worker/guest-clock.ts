/**
 * @module The clock one run's guest reads (Date.now(), new Date(), Date()): answered from the
 * replayed run's readings in order while they last, then live. Live readings are kept until
 * the next message to the host carries them, so a reading costs no round trip.
 */

export class GuestClock {
  private replayed = 0;
  private live: number[] = [];

  constructor(private readonly replay: readonly number[] = []) {}

  /** One reading, in epoch milliseconds. */
  now(): number {
    if (this.replayed < this.replay.length) return this.replay[this.replayed++]!;
    const reading = Date.now();
    this.live.push(reading);
    return reading;
  }

  /** The live readings taken since the last take, in order; undefined when there are none. */
  take(): number[] | undefined {
    if (this.live.length === 0) return undefined;
    const taken = this.live;
    this.live = [];
    return taken;
  }
}
