/**
 * @module What an SSE stream holds for a client that reads slower than events come: at most
 * STREAM_MAX_QUEUED events and STREAM_MAX_QUEUED_BYTES of their data; past either, the oldest
 * go, counted so the stream can say what it skipped.
 */

/** Events a stream keeps for a slow client. */
export const STREAM_MAX_QUEUED = 10_000;
/** Their data together, in UTF-8 bytes (a record's JSON is at most 64 KiB). */
export const STREAM_MAX_QUEUED_BYTES = 8 * 1_048_576;

export class StreamBacklog {
  private readonly items: Array<{ data: string; bytes: number }> = [];
  private head = 0;
  private bytes = 0;
  private skippedCount = 0;
  private skippedBytes = 0;

  constructor(
    private readonly maxItems = STREAM_MAX_QUEUED,
    private readonly maxBytes = STREAM_MAX_QUEUED_BYTES,
  ) {}

  /** Queues `data`, dropping the oldest while either bound is passed (`data` itself included). */
  push(data: string): void {
    const bytes = Buffer.byteLength(data);
    this.items.push({ data, bytes });
    this.bytes += bytes;
    while (this.length > this.maxItems || this.bytes > this.maxBytes) {
      const dropped = this.items[this.head++]!;
      this.bytes -= dropped.bytes;
      this.skippedCount++;
      this.skippedBytes += dropped.bytes;
    }
    this.compact();
  }

  /** The oldest queued data, or undefined. */
  shift(): string | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.head++]!;
    this.bytes -= item.bytes;
    this.compact();
    return item.data;
  }

  get length(): number {
    return this.items.length - this.head;
  }

  get queuedBytes(): number {
    return this.bytes;
  }

  /** What was dropped since the last call (then forgotten), or undefined when nothing was. */
  takeSkipped(): { count: number; bytes: number } | undefined {
    if (this.skippedCount === 0) return undefined;
    const skipped = { count: this.skippedCount, bytes: this.skippedBytes };
    this.skippedCount = 0;
    this.skippedBytes = 0;
    return skipped;
  }

  /** Array#shift is linear: drop the consumed head in one go once it is half the array. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }
}
