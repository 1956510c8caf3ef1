/** @module Reads an activity query from loose parameters (REST query strings, CLI flags), naming what is wrong. */
import {
  ACTIVITY_KINDS,
  ACTIVITY_STATUSES,
  ACTIVITY_SURFACES,
  type ActivityQuery,
} from '../../store/index.ts';
import { parseIsoInstant } from '../../util/iso-instant.ts';

export const ACTIVITY_DEFAULT_LIMIT = 50;
export const ACTIVITY_MAX_LIMIT = 500;
/** Longest `search` text. */
export const ACTIVITY_MAX_SEARCH_CHARS = 200;

export type QueryParse = { ok: true; query: ActivityQuery } | { ok: false; message: string };

/** `raw` as an integer from `min` to `max` (`fallback` when absent), or the message naming it. */
export function integerParam(
  name: string,
  raw: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number | string {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    return `${name} must be an integer from ${min} to ${max} (got "${raw}")`;
  }
  return n;
}

/** `raw` as one of `allowed` ({value}), undefined when not given, or the message naming it. */
function oneOf<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
): { value: T } | undefined | string {
  if (!raw) return undefined;
  if (!allowed.includes(raw as T)) {
    return `${name} must be one of ${allowed.join(', ')} (got "${raw}")`;
  }
  return { value: raw as T };
}

/** An ISO 8601 instant parameter as epoch milliseconds, or the message naming it. */
function instant(name: string, raw: string): number | string {
  const at = parseIsoInstant(raw);
  return at === undefined
    ? `${name} must be an ISO 8601 date or time, like 2026-12-01 or 2026-12-01T10:00:00Z (got "${raw}")`
    : at;
}

/** Parses limit, offset, kind, status, surface, server, tool, caller, parent_id, since, until and search. */
export function parseActivityQuery(params: Record<string, string | undefined>): QueryParse {
  const limit = integerParam('limit', params.limit, 1, ACTIVITY_MAX_LIMIT, ACTIVITY_DEFAULT_LIMIT);
  if (typeof limit === 'string') return { ok: false, message: limit };
  const offset = integerParam('offset', params.offset, 0, Number.MAX_SAFE_INTEGER, 0);
  if (typeof offset === 'string') return { ok: false, message: offset };
  const query: ActivityQuery = { limit, offset };
  const { kind, status, server, parent_id, since, until, surface, caller, tool, search } = params;
  const kindOk = oneOf('kind', kind, ACTIVITY_KINDS);
  if (typeof kindOk === 'string') return { ok: false, message: kindOk };
  const statusOk = oneOf('status', status, ACTIVITY_STATUSES);
  if (typeof statusOk === 'string') return { ok: false, message: statusOk };
  const surfaceOk = oneOf('surface', surface, ACTIVITY_SURFACES);
  if (typeof surfaceOk === 'string') return { ok: false, message: surfaceOk };
  if (kindOk) query.kind = kindOk.value;
  if (statusOk) query.status = statusOk.value;
  if (surfaceOk) query.surface = surfaceOk.value;
  if (server) query.server = server;
  if (parent_id) query.parent_id = parent_id;
  if (caller) query.caller = caller;
  if (tool) query.tool = tool;
  for (const [name, raw] of [
    ['since', since],
    ['until', until],
  ] as const) {
    if (!raw) continue;
    const at = instant(name, raw);
    if (typeof at === 'string') return { ok: false, message: at };
    query[name === 'since' ? 'sinceMs' : 'untilMs'] = at;
  }
  if (search) {
    if (search.length > ACTIVITY_MAX_SEARCH_CHARS) {
      return {
        ok: false,
        message: `search must be at most ${ACTIVITY_MAX_SEARCH_CHARS} characters (got ${search.length})`,
      };
    }
    query.search = search;
  }
  return { ok: true, query };
}
