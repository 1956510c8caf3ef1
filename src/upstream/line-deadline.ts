/**
 * @module The time bounds on one stdio line: once a line has begun, its bytes must keep coming
 * (UPSTREAM_LINE_STALL_MS between them) and its newline must arrive (UPSTREAM_LINE_MAX_MS after
 * its first byte); otherwise the line is wedged and `onWedged` hears why.
 */
import { UPSTREAM_LINE_MAX_MS, UPSTREAM_LINE_STALL_MS } from '../config/defaults.ts';

/** How every line-bound reason starts, so a call failed by one is told apart from an outage (call-failure.ts). */
export const LINE_BOUND_REASON = 'a message line from the server';

export class LineDeadline {
  private timer: NodeJS.Timeout | undefined;
  private startedAt: number | undefined;
  /** Bytes seen so far, so a timer that fires while bytes wait to be read is not believed. */
  private seen = 0;

  constructor(
    private readonly onWedged: (reason: string) => void,
    private readonly stallMs = UPSTREAM_LINE_STALL_MS,
    private readonly maxMs = UPSTREAM_LINE_MAX_MS,
  ) {}

  /**
   * After a chunk was read: `partialBytes` of an unfinished line remain (0: none), and
   * `newLine` says whether that unfinished line began in this chunk.
   */
  read(chunkBytes: number, partialBytes: number, newLine: boolean): void {
    this.seen += chunkBytes;
    if (partialBytes === 0) {
      this.stop();
      return;
    }
    const now = Date.now();
    if (newLine || this.startedAt === undefined) this.startedAt = now;
    const elapsed = now - this.startedAt;
    if (elapsed >= this.maxMs) {
      this.wedged(this.tooSlow(partialBytes));
      return;
    }
    clearTimeout(this.timer);
    const stalled = this.stallMs <= this.maxMs - elapsed;
    const seenAtArm = this.seen;
    this.timer = setTimeout(
      () => {
        // A busy event loop runs due timers before it reads the pipe: give waiting bytes their turn.
        setImmediate(() => {
          if (this.seen !== seenAtArm || this.startedAt === undefined) return;
          this.wedged(
            stalled
              ? `${LINE_BOUND_REASON} stopped without its newline: nothing more for ${this.stallMs} ms after ${partialBytes} bytes (a message must keep coming until its newline)`
              : this.tooSlow(partialBytes),
          );
        });
      },
      Math.min(this.stallMs, this.maxMs - elapsed),
    );
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.startedAt = undefined;
  }

  private tooSlow(partialBytes: number): string {
    return `${LINE_BOUND_REASON} did not end within ${this.maxMs} ms of its first byte (${partialBytes} bytes so far)`;
  }

  private wedged(reason: string): void {
    this.stop();
    this.onWedged(reason);
  }
}
