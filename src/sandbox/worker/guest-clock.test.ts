import { describe, expect, it } from 'vitest';
import { decodeReadings, GuestClock } from './guest-clock.ts';

describe('GuestClock', () => {
  it('keeps one pair per millisecond for a loop that polls the clock, and replays it read for read', () => {
    const clock = new GuestClock();
    const read: number[] = [];
    const until = Date.now() + 30;
    for (let now = clock.now(); now < until; now = clock.now()) read.push(now);
    read.push(until);
    const encoded = clock.take()!;
    // Thousands of reads, a few dozen numbers.
    expect(encoded.length).toBeLessThan(200);
    expect(encoded.length).toBeLessThan(read.length);
    const live = decodeReadings(encoded);
    expect(live.length).toBe(read.length);
    const replay = new GuestClock(encoded);
    const again = live.map(() => replay.now());
    expect(again).toEqual(live);
    // Past the replay: live again.
    expect(replay.now()).toBeGreaterThanOrEqual(live[live.length - 1]!);
  });

  it('starts each taken list with a reading, so lists joined in order replay as one', () => {
    const clock = new GuestClock();
    clock.now();
    clock.now();
    const first = clock.take()!;
    clock.now();
    const second = clock.take()!;
    expect(second[0]).toBeGreaterThanOrEqual(0);
    expect(decodeReadings([...first, ...second])).toHaveLength(3);
  });
});
