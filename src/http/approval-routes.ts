/**
 * @module REST /api/v1/approvals (admin key only): list, read, approve, deny, and a live SSE
 * stream. An agent token gets 403 on every route: an agent can never decide its own calls.
 */
import { type Context, Hono } from 'hono';
import type { ApprovalChannel } from '../config/index.ts';
import { type ApprovalDesk, channelRefusal, type Decision } from '../execution/index.ts';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../store/index.ts';
import { restError } from './rest-error.ts';
import { sseFeed } from './sse-feed.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

/**
 * The channel a decision comes through: the dashboard (its session cookie), the CLI (which
 * names itself; it holds the admin key like any REST client), else REST.
 */
export function channelOf(c: Ctx): Exclude<ApprovalChannel, 'elicitation'> {
  if (c.get('dashboard') === true) return 'dashboard';
  return c.req.header('x-codemux-surface') === 'cli' ? 'cli' : 'rest';
}

/** Who decided, as the approval records it: the admin, and through which surface. */
export function decider(c: Ctx): string {
  const channel = channelOf(c);
  return channel === 'rest' ? 'admin' : `admin via ${channel}`;
}

/** The optional body of a decision: `{args_sha256}` binds it to the arguments the decider saw. */
async function expectedDigest(
  c: Ctx,
): Promise<{ ok: true; digest?: string } | { ok: false; message: string }> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: true };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the body must be JSON: {} or {"args_sha256": "<hex digest>"}' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      ok: false,
      message: 'the body must be an object: {} or {"args_sha256": "<hex digest>"}',
    };
  }
  const digest = (body as Record<string, unknown>).args_sha256;
  if (digest === undefined) return { ok: true };
  if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) {
    return {
      ok: false,
      message: "args_sha256 must be 64 lowercase hex characters (the approval's args_sha256)",
    };
  }
  return { ok: true, digest };
}

/**
 * The approvals routes over `desk`; `channels` reads tool_policy.approval_channels (hot-reloaded)
 * at each decision.
 */
export function approvalRoutes(
  desk: ApprovalDesk,
  channels: () => readonly ApprovalChannel[],
): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.use('*', async (c, next) => {
    if (c.get('caller').kind !== 'admin') {
      return restError(
        c,
        403,
        'FORBIDDEN',
        'approvals are for the admin API key only: an agent token can never list or decide them',
      );
    }
    await next();
  });

  api.get('/', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !APPROVAL_STATUSES.includes(status as ApprovalStatus)) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `status must be one of ${APPROVAL_STATUSES.join(', ')} (got "${status}")`,
      );
    }
    return c.json({ items: await desk.list(status as ApprovalStatus | undefined) });
  });

  api.get('/stream', (c) => sseFeed(c, 'approval', 'approvals', (send) => desk.subscribe(send)));

  api.get('/:id', async (c) => {
    const approval = await desk.get(c.req.param('id'));
    if (!approval) {
      return restError(
        c,
        404,
        'APPROVAL_NOT_FOUND',
        `no approval ${c.req.param('id')} (GET /api/v1/approvals lists them)`,
      );
    }
    return c.json(approval);
  });

  // The whole arguments of an approval, also when `args` shows only the keys that fit: an
  // approver can always read everything they approve (secrets redacted, keys sorted).
  api.get('/:id/args', async (c) => {
    const id = c.req.param('id');
    const approval = await desk.get(id);
    if (!approval) {
      return restError(
        c,
        404,
        'APPROVAL_NOT_FOUND',
        `no approval ${id} (GET /api/v1/approvals lists them)`,
      );
    }
    const whole = approval.args_truncated ? await desk.wholeArgs(id) : null;
    if (typeof whole === 'string')
      return c.body(whole, 200, { 'content-type': 'application/json' });
    return c.json(approval.args);
  });

  const decide = (decision: Decision) => async (c: Ctx) => {
    const closed = channelRefusal(channelOf(c), channels());
    if (closed) return restError(c, 403, 'CHANNEL_DISABLED', closed);
    const expected = await expectedDigest(c);
    if (!expected.ok) return restError(c, 400, 'INVALID_REQUEST', expected.message);
    let answer: Awaited<ReturnType<ApprovalDesk['decide']>>;
    try {
      answer = await desk.decide(c.req.param('id') ?? '', decision, decider(c), expected.digest);
    } catch (error) {
      return restError(
        c,
        503,
        'DATABASE_UNAVAILABLE',
        `the decision could not be saved: ${(error as Error).message}`,
      );
    }
    if (!answer.ok) {
      return restError(c, answer.status, answer.code, answer.message, {
        extra: answer.approval ? { approval: answer.approval } : undefined,
      });
    }
    return c.json({ ok: true, approval: answer.approval, request_id: c.get('requestId') });
  };
  api.post('/:id/approve', decide('approve'));
  api.post('/:id/deny', decide('deny'));

  return api;
}
