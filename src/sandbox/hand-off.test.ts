import { describe, expect, it } from 'vitest';
import { AdaptiveSpin, SpinGate } from './hand-off.ts';

const always = () => true;

describe('AdaptiveSpin', () => {
  it('polls while waits are short and takes an answer that is already there', () => {
    const spin = new AdaptiveSpin(1000);
    expect(spin.poll(always)).toBe(true);
  });

  it('polls until the answer arrives', () => {
    const spin = new AdaptiveSpin(1000);
    let reads = 0;
    expect(spin.poll(() => ++reads === 100)).toBe(true);
    expect(reads).toBe(100);
  });

  it('stops polling once waits are long, and polls again when they are short again', () => {
    const spin = new AdaptiveSpin(1000);
    for (let i = 0; i < 4; i++) spin.observe(50_000);
    expect(spin.poll(always)).toBe(false);
    for (let i = 0; i < 20; i++) spin.observe(100);
    expect(spin.poll(always)).toBe(true);
  });

  it('backs off after misses in a row: the next 2, 4, 8 ... up to 64 waits sleep without polling', () => {
    const spin = new AdaptiveSpin(50);
    let polled = 0;
    const missing = () => {
      polled++;
      return false;
    };
    /** Polls until one really polls (and misses); how many slept without polling before it. */
    const window = () => {
      const before = polled;
      let skipped = 0;
      for (;;) {
        spin.poll(missing);
        if (polled !== before) return skipped;
        skipped++;
      }
    };
    expect(spin.poll(missing)).toBe(false);
    expect(Array.from({ length: 7 }, window)).toEqual([2, 4, 8, 16, 32, 64, 64]);
    // A hit ends the streak: the next miss backs off by 2 again.
    while (!spin.poll(always));
    spin.poll(missing);
    expect(window()).toBe(2);
  });

  it('never polls with no time allowed', () => {
    expect(new AdaptiveSpin(0).poll(always)).toBe(false);
  });
});

describe('SpinGate', () => {
  it('lets at most its number of pollers in at once', () => {
    const shared = new SharedArrayBuffer(4);
    const a = new SpinGate(shared, 1);
    const b = new SpinGate(shared, 1);
    expect(a.enter()).toBe(true);
    expect(b.enter()).toBe(false);
    a.leave();
    expect(b.enter()).toBe(true);
    b.leave();
  });

  it('lets nobody in on one core (no slots)', () => {
    expect(new SpinGate(new SharedArrayBuffer(4), 0).enter()).toBe(false);
  });
});
