/**
 * @module The stdio transport's line reader: it joins a long line's chunks once
 * (the SDK's copies the whole buffer per chunk), and drops notifications the gateway never
 * handles before the SDK's zod parse, so a flood of 20,000 of them costs a JSON.parse each
 * instead of stalling the event loop for a second.
 */
import { ADMITTED, isIgnoredNotification } from './guarded-transport.ts';
import { LINE_BOUND_REASON } from './line-deadline.ts';

const NEWLINE = 0x0a;

interface MessageSchema {
  parse(value: unknown): unknown;
}

export class LineReader {
  private pending = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(
    /** The longest line accepted, read as each chunk arrives (a reloaded config applies at once). */
    private readonly maxBytes: () => number,
    private readonly schema: MessageSchema,
  ) {}

  append(chunk: Buffer): void {
    this.length += chunk.length;
    const maxBytes = this.maxBytes();
    if (this.length > maxBytes) {
      this.clear();
      throw new Error(
        `${LINE_BOUND_REASON} is longer than ${maxBytes} bytes (the upstream message bound)`,
      );
    }
    this.chunks.push(chunk);
    if (chunk.includes(NEWLINE)) {
      this.pending = Buffer.concat([this.pending, ...this.chunks]);
      this.chunks = [];
    }
  }

  /** Bytes of a line not ended yet (0: every line read so far had its newline). */
  get partialBytes(): number {
    return this.length;
  }

  /** The next message the client should see, or null; throws for a line that is not one. */
  readMessage(): unknown {
    for (;;) {
      const index = this.pending.indexOf(NEWLINE);
      if (index === -1) return null;
      const line = this.pending.toString('utf8', 0, index).replace(/\r$/, '');
      this.pending = this.pending.subarray(index + 1);
      this.length -= index + 1;
      const value: unknown = JSON.parse(line);
      if (isIgnoredNotification(value)) continue;
      const message = this.schema.parse(value) as Record<PropertyKey, unknown>;
      message[ADMITTED] = true;
      return message;
    }
  }

  clear(): void {
    this.pending = Buffer.alloc(0);
    this.chunks = [];
    this.length = 0;
  }
}
