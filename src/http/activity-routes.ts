/** @module REST /api/v1/activity: the history (admin key only), one record with its children, and a live SSE stream. */
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { type ActivityLog, parseActivityQuery } from '../execution/index.ts';
import { STREAM_MAX_QUEUED, STREAM_MAX_QUEUED_BYTES, StreamBacklog } from './stream-backlog.ts';
import type { GatewayEnv } from './types.ts';

/** A comment line keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
const BOUNDS = `the stream keeps at most ${STREAM_MAX_QUEUED} records and ${STREAM_MAX_QUEUED_BYTES / 1_048_576} MiB for a client`;

function refuse(
  c: Context<GatewayEnv>,
  status: 400 | 403 | 404 | 503,
  code: string,
  message: string,
) {
  return c.json({ ok: false, error: { code, message }, request_id: c.get('requestId') }, status);
}

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
    streamSSE(c, async (stream) => {
      const queue = new StreamBacklog();
      let wake: (() => void) | undefined;
      const unsubscribe = activity()!.subscribe((record) => {
        queue.push(JSON.stringify(record));
        wake?.();
      });
      stream.onAbort(() => {
        unsubscribe();
        wake?.();
      });
      await stream.writeSSE({ event: 'ready', data: '{}' });
      try {
        while (!stream.aborted && !stream.closed) {
          const skipped = queue.takeSkipped();
          if (skipped) {
            // Said as a comment: the client's next reload of the list has them all.
            await stream.write(
              `: ${skipped.count} records skipped, ${skipped.bytes} bytes (this client reads slower than they come; ${BOUNDS})\n\n`,
            );
          }
          const data = queue.shift();
          if (data !== undefined) {
            await stream.writeSSE({ event: 'activity', data });
            continue;
          }
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, KEEPALIVE_MS);
          });
          // Woken by a record: the keep-alive timer of this wait is not needed any more.
          clearTimeout(timer);
          wake = undefined;
          if (queue.length === 0 && !stream.aborted) await stream.write(': keepalive\n\n');
        }
      } finally {
        unsubscribe();
      }
    }),
  );

  api.get('/:id', async (c) => {
    const record = await activity()!.get(c.req.param('id'));
    if (!record) return refuse(c, 404, 'NOT_FOUND', `no activity record "${c.req.param('id')}"`);
    return c.json(record);
  });

  return api;
}
