/** @module Keeps the last few KiB a child process wrote to stderr, for error messages. */
import type { Readable } from 'node:stream';

const TAIL_BYTES = 2048;

export class StderrTail {
  private text = '';

  attach(stream: Readable | null | undefined, onLine?: (line: string) => void): void {
    stream?.on('data', (chunk: Buffer) => {
      const s = chunk.toString('utf8');
      this.text = (this.text + s).slice(-TAIL_BYTES);
      if (onLine) for (const line of s.split('\n')) if (line.trim()) onLine(line);
    });
  }

  /** The tail, trimmed, or '' when the child wrote nothing. */
  get value(): string {
    return this.text.trim();
  }
}
