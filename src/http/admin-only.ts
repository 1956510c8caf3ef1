/** @module The admin-key-only guard the /api/v1 route groups share. */
import type { Context, Next } from 'hono';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

/**
 * Per route (the groups are mounted at /api/v1 beside each other: no middleware on '*'): 403
 * FORBIDDEN with `message` for anyone but the admin key (an agent token, a dashboard session
 * is the admin's).
 */
export function adminOnly(message: string) {
  return async (c: Ctx, next: Next) => {
    if (c.get('caller')?.kind !== 'admin') return restError(c, 403, 'FORBIDDEN', message);
    await next();
  };
}
