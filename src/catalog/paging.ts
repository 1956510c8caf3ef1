/** @module Pages of `{items, total, limit, offset, hasMore, nextOffset}` (limit default 20, cap 100). */
import type { Page } from './types.ts';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** Checks `limit` / `offset` parameters; a message naming the bad one, or the numbers. */
export function pageParams(
  params: Record<string, unknown>,
  defaults: { limit: number; max: number } = { limit: DEFAULT_PAGE_LIMIT, max: MAX_PAGE_LIMIT },
): { limit: number; offset: number } | string {
  const { limit, offset } = params;
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1)) {
    return `limit must be an integer >= 1 (got ${JSON.stringify(limit)})`;
  }
  if (offset !== undefined && !(Number.isInteger(offset) && (offset as number) >= 0)) {
    return `offset must be an integer >= 0 (got ${JSON.stringify(offset)})`;
  }
  return {
    limit: Math.min((limit as number | undefined) ?? defaults.limit, defaults.max),
    offset: (offset as number | undefined) ?? 0,
  };
}

export function page<T>(all: readonly T[], limit: number, offset: number): Page<T> {
  const items = all.slice(offset, offset + limit);
  const hasMore = offset + items.length < all.length;
  return {
    items,
    total: all.length,
    limit,
    offset,
    hasMore,
    ...(hasMore ? { nextOffset: offset + items.length } : {}),
  };
}
