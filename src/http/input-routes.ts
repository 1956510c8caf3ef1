/**
 * @module REST /api/v1/inputs (admin key only): an upstream's requests for input during calls,
 * listed, read, answered or declined, and a live SSE stream. The answer goes to the waiting call
 * and is never kept. An agent token gets 403 on every route, as on approvals.
 */
import { type Context, Hono } from 'hono';
import { INPUT_STATUSES, type InputRequests, type InputStatus } from '../execution/index.ts';
import type { InputReply } from '../upstream/index.ts';
import { adminOnly } from './admin-only.ts';
import { decider } from './approval-routes.ts';
import { restError } from './rest-error.ts';
import { sseFeed } from './sse-feed.ts';
import type { GatewayEnv } from './types.ts';

const ADMIN_ONLY =
  'input requests are for the admin API key only: an agent token can never list or answer them';

/** The routes over `desk` (mounted at /api/v1/inputs). */
export function inputRoutes(desk: InputRequests): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();
  api.use('*', adminOnly(ADMIN_ONLY));

  api.get('/', (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !INPUT_STATUSES.includes(status as InputStatus)) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `status must be one of ${INPUT_STATUSES.join(', ')} (got "${status}")`,
      );
    }
    return c.json({ items: desk.list(status as InputStatus | undefined) });
  });

  api.get('/stream', (c) => sseFeed(c, 'input', 'input requests', (send) => desk.subscribe(send)));

  api.get('/:id', (c) => {
    const input = desk.get(c.req.param('id'));
    if (!input) {
      return restError(
        c,
        404,
        'INPUT_NOT_FOUND',
        `no input request ${c.req.param('id')} (GET /api/v1/inputs lists them)`,
      );
    }
    return c.json(input);
  });

  const answer = (c: Context<GatewayEnv>, reply: InputReply) => {
    const outcome = desk.answer(c.req.param('id') ?? '', reply, decider(c));
    if (!outcome.ok) {
      return restError(c, outcome.status, outcome.code, outcome.message, {
        extra: outcome.input ? { input: outcome.input } : undefined,
      });
    }
    return c.json({ ok: true, input: outcome.input, request_id: c.get('requestId') });
  };

  api.post('/:id/answer', async (c) => {
    let body: unknown;
    try {
      body = JSON.parse((await c.req.text()) || '{}');
    } catch {
      return restError(c, 400, 'INVALID_REQUEST', 'the body must be JSON: {"content": {...}}');
    }
    const content = (body as { content?: unknown } | null)?.content ?? {};
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        'content must be an object of the form\'s fields: {"content": {"name": "value"}}',
        { field: 'content' },
      );
    }
    return answer(c, { action: 'accept', content: content as Record<string, never> });
  });
  api.post('/:id/decline', (c) => answer(c, { action: 'decline' }));

  return api;
}
