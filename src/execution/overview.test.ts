import { describe, expect, it } from 'vitest';
import { hourlySeries, OVERVIEW_HOURS, overviewHours } from './overview.ts';

describe('the Overview window', () => {
  it('is the current UTC hour and the 23 before it, oldest first', () => {
    const hours = overviewHours(Date.parse('2026-12-06T04:59:59.999Z'));
    expect(hours).toHaveLength(OVERVIEW_HOURS);
    expect(hours[0]).toBe('2026-12-05T05:00:00.000Z');
    expect(hours.at(-1)).toBe('2026-12-06T04:00:00.000Z');
    expect(overviewHours(Date.parse('2026-12-06T05:00:00.000Z')).at(-1)).toBe(
      '2026-12-06T05:00:00.000Z',
    );
  });

  it('spreads the store tallies into one series per status, zeros where nothing ran', () => {
    const hours = overviewHours(Date.parse('2026-12-06T04:30:00.000Z'));
    const series = hourlySeries(
      [
        { hour: '2026-12-05T05:00:00.000Z', kind: 'execution', status: 'success', count: 3 },
        { hour: '2026-12-06T04:00:00.000Z', kind: 'execution', status: 'error', count: 2 },
        { hour: '2026-12-06T04:00:00.000Z', kind: 'tool_call', status: 'success', count: 9 },
        // Outside the window (a record written as the hour turned): left out.
        { hour: '2026-12-05T04:00:00.000Z', kind: 'execution', status: 'success', count: 7 },
      ],
      hours,
      'execution',
    );
    expect(Object.keys(series)).toEqual(['success', 'tool_error', 'error', 'blocked', 'rejected']);
    expect(series.success[0]).toBe(3);
    expect(series.error.at(-1)).toBe(2);
    expect(series.success.reduce((a, b) => a + b)).toBe(3);
    expect(series.tool_error).toEqual(hours.map(() => 0));
  });
});
