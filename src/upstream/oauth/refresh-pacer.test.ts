import { describe, expect, it } from 'vitest';
import {
  OAUTH_REFRESH_BACKOFF_MAX_MS,
  OAUTH_REFRESH_MIN_INTERVAL_MS,
} from '../../config/defaults.ts';
import { RefreshPacer, refreshWait } from './refresh-pacer.ts';

describe('refreshWait', () => {
  it.each([
    [30_000, 0, 30_000],
    [30_000, 1, 60_000],
    [30_000, 2, 120_000],
    [30_000, 4, 480_000],
    [30_000, 5, OAUTH_REFRESH_BACKOFF_MAX_MS],
    [30_000, 1_000, OAUTH_REFRESH_BACKOFF_MAX_MS],
    [3_600_000, 3, 3_600_000],
  ])('interval %i ms after %i failures: %i ms', (interval, failures, wait) => {
    expect(refreshWait(interval, failures)).toBe(wait);
  });
});

describe('RefreshPacer', () => {
  it('lets the first refresh go at once, then the interval, doubled per failure, reset by a success', () => {
    const pacer = new RefreshPacer();
    const interval = OAUTH_REFRESH_MIN_INTERVAL_MS;
    expect(pacer.nextAt(interval)).toBe(0);
    pacer.sent(1_000);
    expect(pacer.nextAt(interval)).toBe(1_000 + interval);
    pacer.settled(false);
    expect(pacer.nextAt(interval)).toBe(1_000 + 2 * interval);
    pacer.settled(false);
    expect(pacer.nextAt(interval)).toBe(1_000 + 4 * interval);
    pacer.sent(500_000);
    pacer.settled(true);
    expect(pacer.nextAt(interval)).toBe(500_000 + interval);
  });
});
