/** @module REST /api/v1/activity: the history (admin key only), one record with its children, and a live SSE stream. */
import { Hono } from 'hono';
import { type ActivityLog, parseActivityQuery } from '../execution/index.ts';
import { restError as refuse } from './rest-error.ts';
import { sseFeed } from './sse-feed.ts';
import type { GatewayEnv } from './types.ts';

/** Mounted under /api/v1 after authentication; `activity` is undefined when history is off. */
export function activityRoutes(activity: () => ActivityLog | undefined): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.use('*', async (c, next) => {
    if (c.get('caller').kind !== 'admin') {
      return refuse(c, 403, 'FORBIDDEN', 'the activity history is for the admin API key only');
    }
    if (!activity()) {
      return refuse(
        c,
        503,
        'ACTIVITY_DISABLED',
        'the activity history is off on this gateway (set "activity_enabled": true in the config)',
      );
    }
    await next();
  });

  api.get('/', async (c) => {
    const parsed = parseActivityQuery(c.req.query());
    if (!parsed.ok) return refuse(c, 400, 'INVALID_REQUEST', parsed.message);
    return c.json(await activity()!.list(parsed.query));
  });

  api.get('/stream', (c) =>
    sseFeed(c, 'activity', 'records', (send) => activity()!.subscribe(send)),
  );

  api.get('/:id', async (c) => {
    const record = await activity()!.get(c.req.param('id'));
    if (!record) return refuse(c, 404, 'NOT_FOUND', `no activity record "${c.req.param('id')}"`);
    return c.json(record);
  });

  return api;
}
