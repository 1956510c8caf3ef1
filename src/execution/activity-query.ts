/** @module Reads an activity query from loose parameters (REST query strings, CLI flags), naming what is wrong. */
import {
  ACTIVITY_KINDS,
  ACTIVITY_STATUSES,
  ACTIVITY_SURFACES,
  type ActivityKind,
  type ActivityQuery,
  type ActivityStatus,
  type ActivitySurface,
} from '../store/index.ts';
import { parseIsoInstant } from '../util/iso-instant.ts';

export const ACTIVITY_DEFAULT_LIMIT = 50;
export const ACTIVITY_MAX_LIMIT = 500;
/** Longest `search` text. */
export const ACTIVITY_MAX_SEARCH_CHARS = 200;

export type QueryParse = { ok: true; query: ActivityQuery } | { ok: false; message: string };

function integer(
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

/** An ISO 8601 instant parameter as epoch milliseconds, or the message naming it. */
function instant(name: string, raw: string): number | string {
  const at = parseIsoInstant(raw);
  return at === undefined
    ? `${name} must be an ISO 8601 date or time, like 2026-12-01 or 2026-12-01T10:00:00Z (got "${raw}")`
    : at;
}

/** Parses limit, offset, kind, status, surface, server, tool, caller, parent_id, since, until and search. */
export function parseActivityQuery(params: Record<string, string | undefined>): QueryParse {
  const limit = integer('limit', params.limit, 1, ACTIVITY_MAX_LIMIT, ACTIVITY_DEFAULT_LIMIT);
  if (typeof limit === 'string') return { ok: false, message: limit };
  const offset = integer('offset', params.offset, 0, Number.MAX_SAFE_INTEGER, 0);
  if (typeof offset === 'string') return { ok: false, message: offset };
  const query: ActivityQuery = { limit, offset };
  const { kind, status, server, parent_id, since, until, surface, caller, tool, search } = params;
  if (kind) {
    if (!ACTIVITY_KINDS.includes(kind as ActivityKind)) {
      return {
        ok: false,
        message: `kind must be one of ${ACTIVITY_KINDS.join(', ')} (got "${kind}")`,
      };
    }
    query.kind = kind as ActivityKind;
  }
  if (status) {
    if (!ACTIVITY_STATUSES.includes(status as ActivityStatus)) {
      return {
        ok: false,
        message: `status must be one of ${ACTIVITY_STATUSES.join(', ')} (got "${status}")`,
      };
    }
    query.status = status as ActivityStatus;
  }
  if (server) query.server = server;
  if (parent_id) query.parent_id = parent_id;
  if (surface) {
    if (!ACTIVITY_SURFACES.includes(surface as ActivitySurface)) {
      return {
        ok: false,
        message: `surface must be one of ${ACTIVITY_SURFACES.join(', ')} (got "${surface}")`,
      };
    }
    query.surface = surface as ActivitySurface;
  }
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
