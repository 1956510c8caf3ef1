import { describe, expect, it } from 'vitest';
import { HeldClock } from './held-clock.ts';

function clock() {
  const seen: number[] = [];
  return { clock: new HeldClock((count) => seen.push(count)), seen };
}

describe('HeldClock', () => {
  it('stays held until the last of overlapping holds is released', () => {
    const { clock: c, seen } = clock();
    const a = c.hold();
    const b = c.hold();
    a();
    expect(c.held).toBe(true);
    b();
    expect(c.held).toBe(false);
    expect(seen).toEqual([1, 2, 1, 0]);
  });

  it('releases each hold once, however often its release is called', () => {
    const { clock: c, seen } = clock();
    const a = c.hold();
    const b = c.hold();
    a();
    a();
    expect(c.held).toBe(true);
    b();
    expect(seen).toEqual([1, 2, 1, 0]);
  });

  it('closes open holds when the run ends and ignores later ones', () => {
    const { clock: c, seen } = clock();
    const a = c.hold();
    c.end();
    expect(c.held).toBe(false);
    a();
    const late = c.hold();
    late();
    expect(c.held).toBe(false);
    expect(seen).toEqual([1, 0]);
  });

  it('counts the open interval in the held total', () => {
    const { clock: c } = clock();
    expect(c.heldTotalMs).toBe(0);
    const release = c.hold();
    const started = Date.now();
    while (Date.now() - started < 5) {}
    expect(c.heldTotalMs).toBeGreaterThanOrEqual(5);
    release();
    const total = c.heldTotalMs;
    expect(c.heldTotalMs).toBe(total);
  });
});
