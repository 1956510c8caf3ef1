import { describe, expect, it } from 'vitest';
import { sortableId } from './sortable-id.ts';

describe('sortableId', () => {
  it('gives unique ids in creation order across refills of its random pool', () => {
    // 3,000 ids draw the 4 KiB pool (1,024 ids) three times.
    const ids = Array.from({ length: 3000 }, () => sortableId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
  });
});
