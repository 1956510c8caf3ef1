/**
 * @module Upstream OAuth over HTTP. REST (admin key only; an agent token gets 403): each
 * http/sse server's standing, starting a sign-in, waiting for it, signing out. And the
 * gateway's `/oauth/callback`, where the authorization server sends the browser back: it
 * needs no key (the single-use `state` is what admits it) and its page never shows a secret.
 */
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { Runtime } from '../execution/index.ts';
import { SignInError, type SignInFlowView, type UpstreamOAuth } from '../upstream/index.ts';
import { adminOnly as guard } from './admin-only.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

/** How long `GET /api/v1/auth/flows/{id}?wait_ms=` may hold a request, and how often it looks. */
const MAX_FLOW_WAIT_MS = 30_000;
const FLOW_POLL_MS = 250;

const adminOnly = guard('upstream sign-in is for the admin API key only');

const unfinished = (flow: SignInFlowView) =>
  flow.status === 'pending' || flow.status === 'exchanging';

/** The flow once it finished, or as it is after `waitMs`. */
async function waitForFlow(oauth: UpstreamOAuth, id: string, waitMs: number, signal: AbortSignal) {
  const until = Date.now() + waitMs;
  let flow = await oauth.flow(id);
  while (flow && unfinished(flow) && Date.now() < until && !signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, FLOW_POLL_MS));
    flow = await oauth.flow(id);
  }
  return flow;
}

function signInFailure(c: Ctx, error: unknown) {
  if (!(error instanceof SignInError)) throw error;
  const code =
    error.status === 404
      ? 'NOT_FOUND'
      : error.status === 400
        ? 'INVALID_REQUEST'
        : 'UPSTREAM_ERROR';
  return restError(c, error.status, code, error.message);
}

export function oauthRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();
  const oauthOr503 = (c: Ctx) =>
    runtime.oauth ??
    restError(c, 503, 'FEATURE_DISABLED', 'upstream OAuth needs the store (this runtime has none)');

  api.get('/auth', adminOnly, async (c) => {
    const oauth = oauthOr503(c);
    if (oauth instanceof Response) return oauth;
    const states = new Map(runtime.registry.status().map((s) => [s.name, s]));
    const items = [];
    for (const name of runtime.registry.serverNames()) {
      const server = runtime.registry.server(name);
      if (!server || server.protocol === 'stdio') continue;
      const standing = await oauth.standing(server);
      items.push({ ...standing, protocol: server.protocol, state: states.get(name)?.state });
    }
    return c.json({ ok: true, items, request_id: c.get('requestId') });
  });

  api.post('/servers/:server/auth/login', adminOnly, async (c) => {
    const oauth = oauthOr503(c);
    if (oauth instanceof Response) return oauth;
    try {
      const started = await oauth.startSignIn(c.req.param('server') ?? '');
      return c.json({ ok: true, ...started, request_id: c.get('requestId') }, 201);
    } catch (error) {
      return signInFailure(c, error);
    }
  });

  api.get('/auth/flows/:id', adminOnly, async (c) => {
    const oauth = oauthOr503(c);
    if (oauth instanceof Response) return oauth;
    const raw = c.req.query('wait_ms');
    const waitMs = raw === undefined ? 0 : Number(raw);
    if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_FLOW_WAIT_MS) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `wait_ms must be a whole number of milliseconds from 0 to ${MAX_FLOW_WAIT_MS}`,
      );
    }
    const id = c.req.param('id') ?? '';
    const flow = await waitForFlow(oauth, id, waitMs, c.req.raw.signal);
    if (!flow) return restError(c, 404, 'NOT_FOUND', `no sign-in ${id}`);
    return c.json({ ok: true, ...flow, request_id: c.get('requestId') });
  });

  api.post('/servers/:server/auth/logout', adminOnly, async (c) => {
    const oauth = oauthOr503(c);
    if (oauth instanceof Response) return oauth;
    const name = c.req.param('server') ?? '';
    try {
      const signedOut = await oauth.logout(name);
      return c.json({
        ok: true,
        server: name,
        signed_out: signedOut,
        request_id: c.get('requestId'),
      });
    } catch (error) {
      return signInFailure(c, error);
    }
  });

  return api;
}

/** The callback's page (hono/html escapes every value put in it). */
function page(title: string, text: string) {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;line-height:1.5">
<h1>${title}</h1><p>${text}</p></body></html>`;
}

/** GET /oauth/callback: completes the sign-in its `state` names, once. */
export function oauthCallback(runtime: Runtime) {
  return async (c: Ctx) => {
    // Nothing here may be cached or sent on as a referrer (the URL carries the code).
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    if (!runtime.oauth)
      return c.html(page('Sign-in failed', 'upstream OAuth is not available'), 404);
    const outcome = await runtime.oauth.completeCallback(new URL(c.req.url).searchParams);
    if (outcome.ok) {
      return c.html(
        page(
          `Signed in to ${outcome.server}`,
          `codemux now connects to ${outcome.server} with this sign-in. You can close this window.`,
        ),
      );
    }
    return c.html(
      page(
        outcome.server ? `Sign-in to ${outcome.server} failed` : 'Sign-in failed',
        outcome.message,
      ),
      outcome.status,
    );
  };
}

/**
 * GET /oauth/client-metadata.json: codemux's OAuth client metadata document (SEP-991), public
 * like the callback (an authorization server fetches it); 404 without `oauth_client_metadata_url`.
 */
export function oauthClientMetadata(runtime: Runtime) {
  return (c: Ctx) => {
    const document = runtime.oauth?.clientMetadataDocument(runtime.config().servers);
    if (!document) {
      return restError(
        c,
        404,
        'NOT_FOUND',
        'no client metadata document: set "oauth_client_metadata_url" in the config (docs/oauth.md)',
      );
    }
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(document);
  };
}
