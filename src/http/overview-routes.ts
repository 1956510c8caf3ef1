/** @module REST GET /api/v1/overview (admin key only): what the dashboard's Overview page draws. */
import { Hono } from 'hono';
import { overviewOf, type Runtime } from '../execution/index.ts';
import { adminOnly } from './admin-only.ts';
import type { GatewayEnv } from './types.ts';

export function overviewRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();
  api.get('/overview', adminOnly('the overview is for the admin API key only'), async (c) =>
    c.json({ ok: true, value: await overviewOf(runtime), request_id: c.get('requestId') }),
  );
  return api;
}
