/** @module An activity query's filters as one portable WHERE clause (positional `?`), for either database. */
import type { ActivityQuery } from './activity-store.ts';

/** The instants a stored `started_at` can hold (toISOString's 24-character form). */
const FIRST_STORED_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_STORED_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `started_at >= since` as time: within the years a record's time can have, the since instant
 * in the records' own fixed-width form (text order is time order there, and the index serves
 * it); after them, no record; before them, every one.
 */
function sinceClause(sinceMs: number): { clause?: string; param?: string } {
  if (sinceMs > LAST_STORED_MS) return { clause: '1 = 0' };
  if (sinceMs <= FIRST_STORED_MS) return {};
  return { clause: 'started_at >= ?', param: new Date(sinceMs).toISOString() };
}

/** `started_at < until` as time, in the same terms as sinceClause. */
function untilClause(untilMs: number): { clause?: string; param?: string } {
  if (untilMs <= FIRST_STORED_MS) return { clause: '1 = 0' };
  if (untilMs > LAST_STORED_MS) return {};
  return { clause: 'started_at < ?', param: new Date(untilMs).toISOString() };
}

/** The text columns a search looks in. */
const SEARCHED = ['code', 'input', 'args'];

/** `text` as a LIKE pattern that matches it anywhere, its own `%`, `_` and `\` taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** WHERE clause and parameters of a query's filters (portable SQL, positional `?`). */
export function activityFilter(query: ActivityQuery): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const key of [
    'kind',
    'status',
    'server',
    'parent_id',
    'caller',
    'surface',
    'tool',
  ] as const) {
    const value = query[key];
    if (value !== undefined) {
      clauses.push(`${key} = ?`);
      params.push(value);
    }
  }
  for (const [at, bound] of [
    [query.sinceMs, sinceClause],
    [query.untilMs, untilClause],
  ] as const) {
    if (at === undefined) continue;
    const { clause, param } = bound(at);
    if (clause) clauses.push(clause);
    if (param !== undefined) params.push(param);
  }
  if (query.search) {
    const pattern = containing(query.search);
    clauses.push(
      `(${SEARCHED.map((c) => `LOWER(COALESCE(${c}, '')) LIKE ? ESCAPE '\\'`).join(' OR ')})`,
    );
    params.push(...SEARCHED.map(() => pattern));
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
