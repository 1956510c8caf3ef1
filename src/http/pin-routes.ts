/**
 * @module REST for tool-definition pinning (admin key only): `GET /api/v1/tools/held` and
 * `POST /api/v1/servers/{server}/tools/{tool}/approve` with `{"sha256": ...}`, the digest of the
 * definition the approver was shown. An agent token gets 403: an agent can never approve the
 * tools it calls.
 */
import { type Context, Hono } from 'hono';
import type { Runtime } from '../execution/index.ts';
import { adminOnly as guard } from './admin-only.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

const adminOnly = guard('held tools and their approval are for the admin API key only');

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * The required `sha256` of the body, or the 400 message. Required, not optional: an approval
 * without it would pin whatever the server lists at that moment, which nobody may have seen.
 */
async function shownDigest(
  c: Context<GatewayEnv>,
  name: string,
): Promise<{ ok: true; sha256: string } | { ok: false; message: string }> {
  const fix = `send {"sha256": "<hex>"} with the sha256 that \`GET /api/v1/tools/held\` (or \`codemux tools held -o json\`) shows for ${name}: it approves only the definition you looked at`;
  let body: unknown;
  try {
    const text = await c.req.text();
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    return { ok: false, message: `the body must be JSON; ${fix}` };
  }
  const sha256 =
    typeof body === 'object' && body !== null ? (body as { sha256?: unknown }).sha256 : undefined;
  if (sha256 === undefined) return { ok: false, message: `field "sha256" is required; ${fix}` };
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    return { ok: false, message: `field "sha256" must be 64 hex characters; ${fix}` };
  }
  return { ok: true, sha256: sha256.toLowerCase() };
}

export function pinRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.get('/tools/held', adminOnly, (c) => c.json({ items: runtime.pins.held() }));

  api.post('/servers/:server/tools/:tool/approve', adminOnly, async (c) => {
    const server = c.req.param('server') ?? '';
    const tool = c.req.param('tool') ?? '';
    const name = `${server}.${tool}`;
    const digest = await shownDigest(c, name);
    if (!digest.ok)
      return restError(c, 400, 'INVALID_REQUEST', digest.message, {
        field: 'sha256',
      });
    if (!runtime.registry.server(server)) {
      return restError(c, 404, 'NOT_FOUND', `server not found: ${server}`);
    }
    if (!runtime.registry.listedTools(server).some((t) => t.name === tool)) {
      return restError(
        c,
        404,
        'NOT_FOUND',
        `tool not found: ${name} (the server does not list it now${runtime.registry.status().find((s) => s.name === server)?.state === 'ready' ? '' : '; it is not connected'})`,
      );
    }
    let outcome: Awaited<ReturnType<Runtime['pins']['approve']>>;
    try {
      outcome = await runtime.pins.approve(server, tool, digest.sha256);
    } catch (error) {
      return restError(
        c,
        503,
        'DATABASE_UNAVAILABLE',
        `the approval of ${name} could not be saved: ${(error as Error).message}`,
      );
    }
    if (outcome.ok) {
      return c.json({ ok: true, approved: outcome.approved, request_id: c.get('requestId') });
    }
    if (outcome.reason === 'changed') {
      return restError(
        c,
        409,
        'DEFINITION_CHANGED',
        `${name} is listed now with a definition whose sha256 is ${outcome.held.sha256}, not ${digest.sha256}: it changed since it was shown, and stays held; look at it again (\`codemux tools held\`) and approve what it is now`,
        { extra: { held: outcome.held } },
      );
    }
    return restError(
      c,
      404,
      'NOT_FOUND',
      `${name} is not held (its definition matches its pin, or tool_pinning is "off"); \`codemux tools held\` lists the held tools`,
    );
  });

  return api;
}
