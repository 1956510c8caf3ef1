/**
 * @module GET /metrics: this instance's metrics as Prometheus text (`telemetry.metrics`), for the
 * admin key (X-API-Key or Authorization: Bearer) unless `telemetry.metrics_auth` is false.
 */
import type { Handler } from 'hono';
import type { Runtime } from '../execution/index.ts';
import { metrics } from '../telemetry/metrics.ts';
import { type AuthDeps, authenticate, unauthorizedMessage } from './auth.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

export const METRICS_PATH = '/metrics';

/** The route's handler: 404 while metrics are off, 401/403 without the admin key. */
export function metricsRoute(runtime: Runtime, auth: AuthDeps): Handler<GatewayEnv> {
  return async (c) => {
    const settings = runtime.config().telemetry;
    const scraped = settings.metrics ? metrics().scrape() : undefined;
    if (!scraped) {
      const why = settings.metrics
        ? 'metrics were off when this gateway started (telemetry.metrics); restart it to serve them'
        : 'metrics are off (telemetry.metrics: false)';
      return restError(c, 404, 'NOT_FOUND', why);
    }
    if (settings.metricsAuth) {
      const credential = authenticate(c, auth);
      if (!credential.ok) {
        c.header('www-authenticate', 'Bearer');
        return restError(c, 401, 'UNAUTHORIZED', unauthorizedMessage(credential.reason));
      }
      if (credential.caller.kind !== 'admin')
        return restError(
          c,
          403,
          'FORBIDDEN',
          '/metrics needs the admin key (an agent token may not read it; or set telemetry.metrics_auth: false)',
        );
    }
    const { contentType, text } = await scraped;
    return c.body(text, 200, { 'content-type': contentType });
  };
}
