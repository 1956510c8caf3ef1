import { describe, expect, it } from 'vitest';
import { STREAM_MAX_QUEUED, STREAM_MAX_QUEUED_BYTES, StreamBacklog } from './stream-backlog.ts';

describe('StreamBacklog', () => {
  it('keeps a slow client at most STREAM_MAX_QUEUED_BYTES, newest kept, and says what it skipped', () => {
    const backlog = new StreamBacklog();
    const record = (i: number) =>
      JSON.stringify({ i: String(i).padStart(6, '0'), pad: 'é'.repeat(32_000) });
    const size = Buffer.byteLength(record(0));
    // 64 KiB records: the byte bound comes long before the record bound.
    const n = Math.ceil((2 * STREAM_MAX_QUEUED_BYTES) / size);
    expect(n).toBeLessThan(STREAM_MAX_QUEUED);
    for (let i = 0; i < n; i++) backlog.push(record(i));
    expect(backlog.queuedBytes).toBeLessThanOrEqual(STREAM_MAX_QUEUED_BYTES);
    const kept = backlog.length;
    expect(kept).toBe(Math.floor(STREAM_MAX_QUEUED_BYTES / size));
    expect(backlog.takeSkipped()).toEqual({ count: n - kept, bytes: (n - kept) * size });
    expect(backlog.takeSkipped()).toBeUndefined();
    expect(Number(JSON.parse(backlog.shift()!).i)).toBe(n - kept);
  });

  it('keeps at most STREAM_MAX_QUEUED records however small', () => {
    const backlog = new StreamBacklog();
    for (let i = 0; i < STREAM_MAX_QUEUED + 5; i++) backlog.push(String(i));
    expect(backlog.length).toBe(STREAM_MAX_QUEUED);
    expect(backlog.takeSkipped()?.count).toBe(5);
    expect(backlog.shift()).toBe('5');
  });

  it('hands out records in order and keeps its count of bytes', () => {
    const backlog = new StreamBacklog(3, 10);
    for (const s of ['ab', 'cd', 'ef']) backlog.push(s);
    expect(backlog.queuedBytes).toBe(6);
    backlog.push('ghijk');
    // 11 bytes: the oldest goes.
    expect(backlog.takeSkipped()).toEqual({ count: 1, bytes: 2 });
    expect([backlog.shift(), backlog.shift(), backlog.shift(), backlog.shift()]).toEqual([
      'cd',
      'ef',
      'ghijk',
      undefined,
    ]);
    expect(backlog.queuedBytes).toBe(0);
  });

  it('stays correct past its compaction point', () => {
    const backlog = new StreamBacklog(5000, Number.MAX_SAFE_INTEGER);
    const out: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      backlog.push(String(i));
      if (i % 3 === 0) out.push(backlog.shift()!);
    }
    while (backlog.length) out.push(backlog.shift()!);
    const skipped = backlog.takeSkipped()?.count ?? 0;
    expect(out.length + skipped).toBe(20_000);
    expect(out.map(Number)).toEqual([...out.map(Number)].sort((a, b) => a - b));
  });
});
