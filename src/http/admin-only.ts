/** @module The REST error answer and the admin-key-only guard the /api/v1 route groups share. */
import type { Context, Next } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

/** `{ok: false, error: {code, message, field?}, request_id}` with `status`. */
export function failure(
  c: Ctx,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  field?: string,
) {
  return c.json(
    {
      ok: false,
      error: { code, message, ...(field ? { field } : {}) },
      request_id: c.get('requestId'),
    },
    status,
  );
}

/**
 * Per route (the groups are mounted at /api/v1 beside each other: no middleware on '*'): 403
 * FORBIDDEN with `message` for anyone but the admin key (an agent token, a dashboard session
 * is the admin's).
 */
export function adminOnly(message: string) {
  return async (c: Ctx, next: Next) => {
    if (c.get('caller')?.kind !== 'admin') return failure(c, 403, 'FORBIDDEN', message);
    await next();
  };
}
