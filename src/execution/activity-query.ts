/** @module Reads an activity query from loose parameters (REST query strings, CLI flags), naming what is wrong. */
import {
  ACTIVITY_KINDS,
  ACTIVITY_STATUSES,
  type ActivityKind,
  type ActivityQuery,
  type ActivityStatus,
} from '../store/index.ts';
import { parseIsoInstant } from '../util/iso-instant.ts';

export const ACTIVITY_DEFAULT_LIMIT = 50;
export const ACTIVITY_MAX_LIMIT = 500;

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

/** Parses limit, offset, kind, status, server, parent_id and since. */
export function parseActivityQuery(params: Record<string, string | undefined>): QueryParse {
  const limit = integer('limit', params.limit, 1, ACTIVITY_MAX_LIMIT, ACTIVITY_DEFAULT_LIMIT);
  if (typeof limit === 'string') return { ok: false, message: limit };
  const offset = integer('offset', params.offset, 0, Number.MAX_SAFE_INTEGER, 0);
  if (typeof offset === 'string') return { ok: false, message: offset };
  const query: ActivityQuery = { limit, offset };
  const { kind, status, server, parent_id, since } = params;
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
  if (since) {
    const at = parseIsoInstant(since);
    if (at === undefined) {
      return {
        ok: false,
        message: `since must be an ISO 8601 date or time, like 2026-12-01 or 2026-12-01T10:00:00Z (got "${since}")`,
      };
    }
    query.sinceMs = at;
  }
  return { ok: true, query };
}
