import { describe, expect, it } from 'vitest';
import { CallDeadline, type CallInFlight, InFlightCalls, outsideCalls } from './input-owner.ts';

const call = (): CallInFlight => ({ options: {}, deadline: new CallDeadline(undefined, () => {}) });

describe('which call a request for input belongs to', () => {
  it('is the call whose async context it arrives in, among several in flight', async () => {
    const calls = new InFlightCalls();
    const [a, b] = [call(), call()];
    let release!: () => void;
    const open = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: Array<CallInFlight | undefined> = [];
    const sending = [a, b].map((c) =>
      calls.run(c, async () => {
        await open;
        seen.push(calls.owner());
      }),
    );
    // Outside both (a stdio stream's context): nobody's, with two in flight.
    expect(outsideCalls(() => calls.owner())).toBeUndefined();
    release();
    await Promise.all(sending);
    expect(seen).toEqual([a, b]);
  });

  it('is the only call in flight when the context names none; nobody once it ended', async () => {
    const calls = new InFlightCalls();
    const only = call();
    let release!: () => void;
    const open = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sending = calls.run(only, () => open);
    expect(outsideCalls(() => calls.owner())).toBe(only);
    release();
    await sending;
    expect(outsideCalls(() => calls.owner())).toBeUndefined();
  });
});
