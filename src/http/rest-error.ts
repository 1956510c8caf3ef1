/** @module The one REST error answer: `{ok: false, error: {code, message, field?}, ...extra, request_id}`. */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayEnv } from './types.ts';

export interface RestErrorOptions {
  /** The request field at fault (a validation error). */
  field?: string;
  /** Keys beside `error` (what the refusal is about: the approval, the held tool). */
  extra?: Record<string, unknown>;
}

/** The body of a REST error; the key order is the documented one. */
export function restErrorBody(
  requestId: string,
  code: string,
  message: string | undefined,
  options: RestErrorOptions = {},
) {
  return {
    ok: false as const,
    error: { code, message, ...(options.field ? { field: options.field } : {}) },
    ...options.extra,
    request_id: requestId,
  };
}

/** Answers `status` with the REST error body (headers set on `c` are kept). */
export function restError(
  c: Context<GatewayEnv>,
  status: ContentfulStatusCode,
  code: string,
  message: string | undefined,
  options?: RestErrorOptions,
) {
  return c.json(restErrorBody(c.get('requestId'), code, message, options), status);
}
