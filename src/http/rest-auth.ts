/**
 * @module The one credential check of /api/v1 (mounted once on `/api/v1/*` in app.ts): a key,
 * an agent token or the dashboard session becomes the caller, else 401 (403 for a session write
 * without the dashboard's header or from another origin). Route groups only check admin-only.
 */
import type { MiddlewareHandler } from 'hono';
import { type AuthDeps, authenticateRest, unauthorizedMessage } from './auth.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

/** Sets `caller` and `dashboard` for the routes after it, or answers the refusal. */
export function restAuth(auth: AuthDeps): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const credential = authenticateRest(c, auth);
    if (!credential.ok && credential.reason === 'forbidden') {
      return restError(c, 403, 'FORBIDDEN', credential.detail);
    }
    if (!credential.ok) {
      return restError(c, 401, 'UNAUTHORIZED', unauthorizedMessage(credential.reason));
    }
    c.set('caller', credential.caller);
    c.set('dashboard', credential.viaSession === true);
    await next();
  };
}
