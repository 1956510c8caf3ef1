/**
 * @module REST /api/v1/executions: the runs that answered `running` (DESIGN "Runs that outlive
 * their request"): list them, wait on one for its final answer, cancel one. An agent token sees
 * and continues its own runs only, the admin key every run; anyone else's id is
 * EXECUTION_NOT_FOUND, as an unknown one.
 */
import { type Context, Hono } from 'hono';
import { MAX_WAIT_MS } from '../config/defaults.ts';
import type { Runtime } from '../execution/index.ts';
import { restError } from './rest-error.ts';
import { refusedResponse, runAnswerResponse, surfaceOf } from './run-answer.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

const STATUSES = ['running', 'done'] as const;

/** `wait_ms` from the query: absent is `fallback`; anything but an integer 0-600000 is undefined. */
function waitMsOf(c: Ctx, fallback: number): number | undefined {
  const raw = c.req.query('wait_ms');
  if (raw === undefined) return fallback;
  if (!/^\d{1,7}$/.test(raw)) return undefined;
  const ms = Number(raw);
  return ms <= MAX_WAIT_MS ? ms : undefined;
}

/** Mounted at /api/v1/executions after authentication. */
export function executionRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.get('/', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !STATUSES.includes(status as (typeof STATUSES)[number])) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `status must be running or done (got "${status}"); leave it out to list both`,
        { field: 'status' },
      );
    }
    const items = await runtime.runs.list(
      c.get('caller'),
      status as (typeof STATUSES)[number] | undefined,
    );
    return c.json({ items, request_id: c.get('requestId') });
  });

  // Waits up to wait_ms (default code_execution_yield_ms) for the run's end: its final answer,
  // the body POST /code/exec would have given had it not yielded, or the running body again.
  api.get('/:id', async (c) => {
    const waitMs = waitMsOf(c, runtime.runs.defaultWaitMs);
    if (waitMs === undefined) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `wait_ms must be an integer from 0 to ${MAX_WAIT_MS} (got "${c.req.query('wait_ms')}"): how long to wait for the run's end before it answers running again`,
        { field: 'wait_ms' },
      );
    }
    const answer = await runtime.runs.resume(
      c.req.param('id'),
      c.get('caller'),
      { waitMs },
      // A client that goes away stops waiting; the run goes on.
      { signal: c.req.raw.signal },
    );
    if (answer.state === 'refused') return refusedResponse(c, answer.error);
    return runAnswerResponse(c, answer, surfaceOf(c));
  });

  // Stops the run with CANCELLED ("cancelled by <caller>") and answers its final answer; a run
  // that already ended is 409 (its answer stays readable with GET).
  api.post('/:id/cancel', async (c) => {
    const answer = await runtime.runs.resume(
      c.req.param('id'),
      c.get('caller'),
      { waitMs: 0, cancel: true },
      { signal: c.req.raw.signal },
    );
    if (answer.state === 'refused' && answer.error.code === 'INVALID_REQUEST') {
      const id = c.req.param('id');
      return restError(
        c,
        409,
        'INVALID_REQUEST',
        `execution ${id} already ended, so there is nothing to cancel; its answer is kept: GET /api/v1/executions/${id} reads it`,
      );
    }
    if (answer.state === 'refused') return refusedResponse(c, answer.error);
    return runAnswerResponse(c, answer, surfaceOf(c));
  });

  return api;
}
