import { describe, expect, it } from 'vitest';
import { LINE_BOUND_REASON, LineDeadline } from './line-deadline.ts';

const wedged = (stallMs: number, maxMs: number) => {
  let report!: (reason: string) => void;
  const reason = new Promise<string>((resolve) => {
    report = resolve;
  });
  return { deadline: new LineDeadline((r) => report(r), stallMs, maxMs), reason };
};

describe('LineDeadline', () => {
  it('reports a line that stops before its newline', async () => {
    const { deadline, reason } = wedged(20, 60_000);
    deadline.read(100, 100, true);
    expect(await reason).toBe(
      `${LINE_BOUND_REASON} stopped without its newline: nothing more for 20 ms after 100 bytes (a message must keep coming until its newline)`,
    );
  });

  it('reports a line that trickles on past its whole-line bound', async () => {
    const { deadline, reason } = wedged(60_000, 50);
    let bytes = 0;
    let done = false;
    void reason.then(() => {
      done = true;
    });
    // A byte at a time, each well within the stall bound.
    while (!done) {
      bytes++;
      deadline.read(1, bytes, false);
      // The trickle's pace is the thing under test: each byte within the stall bound.
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await reason).toMatch(/did not end within 50 ms of its first byte/);
  });
});
