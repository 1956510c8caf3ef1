/**
 * @module Casting a code tool call's arguments to the params' JavaScript types, before any
 * JavaScript runs: a missing required param, an unknown one, or a value that cannot be cast
 * is refused with a message naming the param and the expected type.
 */
import type { CodeToolParam, CodeToolParamType } from '../store/index.ts';

/** A cast value as it travels to the guest: dates as ISO text, turned into a `Date` there. */
export type Cast = { ok: true; value: unknown } | { ok: false; expected: string };

const INTEGER_TEXT = /^[+-]?\d+$/;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function jsonText(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function toDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const day = DATE_ONLY.exec(value);
  if (day) {
    const date = new Date(`${value}T00:00:00.000Z`);
    // Rejects 2026-02-30, which Date would roll over into March.
    return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value
      ? undefined
      : date.toISOString();
  }
  if (!DATE_TIME.test(value)) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** What each type accepts, and the cast. */
const CASTS: Record<CodeToolParamType, { expected: string; cast(v: unknown): unknown }> = {
  string: {
    expected: 'a string',
    cast: (v) =>
      typeof v === 'string'
        ? v
        : typeof v === 'number' || typeof v === 'boolean'
          ? String(v)
          : undefined,
  },
  integer: {
    expected: 'an integer (a number or numeric text)',
    cast: (v) => {
      const n = typeof v === 'string' && INTEGER_TEXT.test(v.trim()) ? Number(v) : v;
      return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
    },
  },
  decimal: {
    expected: 'a number (or numeric text)',
    cast: (v) => {
      const n = typeof v === 'string' && DECIMAL_TEXT.test(v.trim()) ? Number(v) : v;
      return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
    },
  },
  date: {
    expected: 'a date (YYYY-MM-DD or an ISO 8601 date-time)',
    cast: toDate,
  },
  boolean: {
    expected: 'a boolean (true/false or "true"/"false")',
    cast: (v) =>
      typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined,
  },
  array: {
    expected: 'an array (or JSON text of one)',
    cast: (v) => {
      const a = typeof v === 'string' ? jsonText(v) : v;
      return Array.isArray(a) ? a : undefined;
    },
  },
  object: {
    expected: 'an object (or JSON text of one)',
    cast: (v) => {
      const o = typeof v === 'string' ? jsonText(v) : v;
      return isPlainObject(o) ? o : undefined;
    },
  },
};

/** Casts one value to `type`. */
export function castValue(type: CodeToolParamType, value: unknown): Cast {
  const rule = CASTS[type];
  const cast = rule.cast(value);
  return cast === undefined ? { ok: false, expected: rule.expected } : { ok: true, value: cast };
}

export interface CastArguments {
  /** Param name -> value (dates as ISO text); omitted optional params without a default are absent. */
  values: Record<string, unknown>;
  /** Params whose values become a `Date` in the guest. */
  dates: string[];
  /** Omitted optional params without a default: defined in the guest, as `undefined`. */
  omitted: string[];
}

/** Validates and casts a call's arguments against the params. */
export function castArguments(
  params: readonly CodeToolParam[],
  args: unknown,
): { ok: true; value: CastArguments } | { ok: false; message: string } {
  if (args === undefined || args === null) args = {};
  if (!isPlainObject(args)) return { ok: false, message: 'arguments must be an object' };
  const known = new Set(params.map((p) => p.name));
  const unknown = Object.keys(args).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    const accepted = params.map((p) => p.name).join(', ') || 'none';
    return {
      ok: false,
      message: `unknown param${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; this tool accepts: ${accepted}`,
    };
  }
  const values: Record<string, unknown> = {};
  const dates: string[] = [];
  const omitted: string[] = [];
  for (const param of params) {
    // Own keys only: an omitted `toString` must not read Object.prototype's.
    let raw = Object.hasOwn(args, param.name) ? args[param.name] : undefined;
    // null counts as omitted: clients often send it for an optional field.
    if (raw === undefined || raw === null) {
      if (param.required)
        return {
          ok: false,
          message: `missing required param "${param.name}" (${CASTS[param.type].expected})`,
        };
      if (param.default_value === null || param.default_value === undefined) {
        omitted.push(param.name);
        continue;
      }
      raw = param.default_value;
    }
    const cast = castValue(param.type, raw);
    if (!cast.ok)
      return {
        ok: false,
        message: `param "${param.name}" must be ${cast.expected}; got ${JSON.stringify(raw)}`,
      };
    values[param.name] = cast.value;
    if (param.type === 'date') dates.push(param.name);
  }
  return { ok: true, value: { values, dates, omitted } };
}
