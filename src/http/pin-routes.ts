/**
 * @module REST for tool-definition pinning (admin key only): `GET /api/v1/tools/held` and
 * `POST /api/v1/servers/{server}/tools/{tool}/approve`. An agent token gets 403: an agent can
 * never approve the tools it calls.
 */
import { Hono } from 'hono';
import type { Runtime } from '../execution/index.ts';
import { failure, adminOnly as guard } from './admin-only.ts';
import type { GatewayEnv } from './types.ts';

const adminOnly = guard('held tools and their approval are for the admin API key only');

export function pinRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.get('/tools/held', adminOnly, (c) => c.json({ items: runtime.pins.held() }));

  api.post('/servers/:server/tools/:tool/approve', adminOnly, async (c) => {
    const server = c.req.param('server') ?? '';
    const tool = c.req.param('tool') ?? '';
    if (!runtime.registry.server(server)) {
      return failure(c, 404, 'NOT_FOUND', `server not found: ${server}`);
    }
    if (!runtime.registry.listedTools(server).some((t) => t.name === tool)) {
      return failure(
        c,
        404,
        'NOT_FOUND',
        `tool not found: ${server}.${tool} (the server does not list it now${runtime.registry.status().find((s) => s.name === server)?.state === 'ready' ? '' : '; it is not connected'})`,
      );
    }
    let approved: Awaited<ReturnType<Runtime['pins']['approve']>>;
    try {
      approved = await runtime.pins.approve(server, tool);
    } catch (error) {
      return failure(
        c,
        503,
        'DATABASE_UNAVAILABLE',
        `the approval of ${server}.${tool} could not be saved: ${(error as Error).message}`,
      );
    }
    if (approved.length === 0) {
      return failure(
        c,
        404,
        'NOT_FOUND',
        `${server}.${tool} is not held (its definition matches its pin, or tool_pinning is "off"); \`codemux tools held\` lists the held tools`,
      );
    }
    return c.json({ ok: true, approved: approved[0], request_id: c.get('requestId') });
  });

  return api;
}
