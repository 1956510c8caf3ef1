/** @module The gateway's HTTP app: /healthz, /mcp (+ legacy /sse), /api/v1, the /ui/ dashboard; errors become responses here. */
import { randomUUID } from 'node:crypto';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { OAUTH_CALLBACK_PATH, OAUTH_CLIENT_METADATA_PATH } from '../config/defaults.ts';
import type { ConfigFile } from '../config/index.ts';
import { channelRefusal, type Runtime } from '../execution/index.ts';
import { DashboardSessions, uiRoutes } from '../ui/index.ts';
import type { Logger } from '../util/logger.ts';
import { activityRoutes } from './activity-routes.ts';
import { approvalRoutes } from './approval-routes.ts';
import { type AuthDeps, authenticate, unauthorizedMessage } from './auth.ts';
import { limitBody } from './body-limit.ts';
import { codeToolRoutes } from './code-tools-routes.ts';
import { executionRoutes } from './execution-routes.ts';
import { inputRoutes } from './input-routes.ts';
import { foreignRequest } from './local-origin.ts';
import type { McpSessions } from './mcp-sessions.ts';
import { METRICS_PATH, metricsRoute } from './metrics-route.ts';
import { oauthCallback, oauthClientMetadata, oauthRoutes } from './oauth-routes.ts';
import { overviewRoutes } from './overview-routes.ts';
import { pinRoutes } from './pin-routes.ts';
import { restAuth } from './rest-auth.ts';
import { restError } from './rest-error.ts';
import { restRoutes } from './rest-routes.ts';
import { RPC_PARSE_ERROR, RPC_UNAUTHORIZED, rpcErrorResponse } from './rpc-error-response.ts';
import { serverRoutes } from './server-routes.ts';
import { tokenRoutes } from './token-routes.ts';
import { toolRoutes } from './tool-routes.ts';
import type { GatewayEnv } from './types.ts';

export const VERSION = '0.1.0';

export interface AppDeps {
  runtime: Runtime;
  auth: AuthDeps;
  sessions: McpSessions;
  /** Sessions of /mcp/codemode, whose only tool is execute. */
  codeModeSessions: McpSessions;
  logger: Logger;
  /** The port the gateway listens on: the only one a keyless Host may name. */
  listenPort: number;
  /** True once shutdown began: every new request is answered 503. */
  draining?: () => boolean;
  /** The config file server changes are written to (`codemux serve`); absent: they are refused. */
  configFile?: ConfigFile;
}

export const SHUTTING_DOWN_HTTP_MESSAGE =
  'codemux is shutting down and accepts no new requests; retry once it is back';
const MCP_PATH = /^\/(mcp|sse|messages)(\/|$)/;

/** Upstreams by state, without names or errors (/healthz answers without a key). */
function upstreamCounts(runtime: Runtime) {
  const counts = { ready: 0, connecting: 0, failed: 0, needs_auth: 0 };
  for (const { state } of runtime.registry.status()) {
    if (
      state === 'ready' ||
      state === 'connecting' ||
      state === 'failed' ||
      state === 'needs_auth'
    ) {
      counts[state]++;
    }
  }
  return counts;
}

export function createApp(deps: AppDeps): Hono<GatewayEnv> {
  const { runtime, sessions, codeModeSessions, logger, listenPort } = deps;
  // Dashboard sessions: made by /ui/ sign-in, accepted by /api/v1 (never by /mcp).
  const auth: AuthDeps = { ...deps.auth, sessions: deps.auth.sessions ?? new DashboardSessions() };
  const app = new Hono<GatewayEnv>();

  app.use('*', async (c, next) => {
    c.set('requestId', randomUUID());
    if (deps.draining?.()) {
      c.header('connection', 'close');
      if (MCP_PATH.test(c.req.path))
        return rpcErrorResponse(503, RPC_UNAUTHORIZED, SHUTTING_DOWN_HTTP_MESSAGE, {
          headers: { connection: 'close' },
        });
      return restError(c, 503, 'SHUTTING_DOWN', SHUTTING_DOWN_HTTP_MESSAGE);
    }
    await next();
  });

  // Every route: a body over max_request_bytes is refused before it is buffered whole.
  app.use(
    '*',
    limitBody(() => runtime.config().maxRequestBytes),
  );

  app.get('/healthz', (c) =>
    c.json({
      ok: true,
      name: 'codemux',
      version: VERSION,
      sessions: sessions.size + codeModeSessions.size,
      upstreams: upstreamCounts(runtime),
      // Counts only: records waiting to be written and any the history had to drop.
      ...(runtime.activity ? { activity: runtime.activity.recorder.stats } : {}),
    }),
  );

  // /mcp and /sse: the admin key or an agent token; open on loopback unless require_mcp_auth.
  const mcpCaller = (c: Context<GatewayEnv>) => {
    const credential = authenticate(c, auth);
    if (credential.ok) return credential;
    if (credential.reason === 'missing' && !runtime.config().requireMcpAuth) {
      // Open without a key only to this machine's own clients, never to a web page.
      const foreign = foreignRequest(
        { host: c.req.header('host'), origin: c.req.header('origin') },
        listenPort,
      );
      if (foreign) return { ok: false as const, reason: 'forbidden' as const, detail: foreign };
      return { ok: true as const, caller: { kind: 'admin' as const }, secret: '' };
    }
    return credential;
  };
  const unauthorized = (reason: 'missing' | 'invalid' | 'forbidden', detail?: string) =>
    reason === 'forbidden'
      ? rpcErrorResponse(403, RPC_UNAUTHORIZED, detail)
      : rpcErrorResponse(401, RPC_UNAUTHORIZED, unauthorizedMessage(reason), {
          headers: { 'www-authenticate': 'Bearer' },
        });

  /** Every MCP route: the caller (and the secret it presented) or a 401/403 answer. */
  const guard: MiddlewareHandler<GatewayEnv> = async (c, next) => {
    const credential = mcpCaller(c);
    if (!credential.ok)
      return unauthorized(
        credential.reason,
        'detail' in credential ? credential.detail : undefined,
      );
    c.set('caller', credential.caller);
    c.set('secret', credential.secret);
    await next();
  };

  /** The MCP routes over one session set: Streamable HTTP, and the legacy SSE pair. */
  const mount = (paths: { mcp: string[]; sse: string; messages: string }, target: McpSessions) => {
    for (const route of paths.mcp) {
      app.all(route, guard, (c) => target.handle(c.req.raw, c.get('caller'), c.get('secret')));
    }
    app.get(paths.sse, guard, async (c) => {
      const refused = await target.openSse(c.env.outgoing, c.get('caller'));
      return refused ?? RESPONSE_ALREADY_SENT;
    });
    app.post(paths.messages, guard, async (c) => {
      let message: unknown;
      try {
        message = await c.req.json();
      } catch {
        return rpcErrorResponse(400, RPC_PARSE_ERROR, 'Parse error');
      }
      return target.postSse(
        c.req.query('sessionId') ?? '',
        message,
        c.get('caller'),
        c.get('secret'),
      );
    });
  };
  mount({ mcp: ['/mcp'], sse: '/sse', messages: '/messages' }, sessions);
  // Code mode: the same transports, whose only tool is execute. `/mcp/codemode/mcp` too:
  // the MCP Inspector's CLI replaces a URL path not ending in /mcp or /sse with /mcp or /sse
  // (the default surface), so that is the Streamable HTTP URL it keeps.
  mount(
    {
      mcp: ['/mcp/codemode', '/mcp/codemode/mcp'],
      sse: '/mcp/codemode/sse',
      messages: '/mcp/codemode/messages',
    },
    codeModeSessions,
  );

  // The one credential check of every /api/v1 route (admin-only ones check the caller's kind).
  app.use('/api/v1/*', restAuth(auth));
  app.route('/api/v1', restRoutes(runtime));
  app.route('/api/v1/code-tools', codeToolRoutes(runtime));
  // Runs that answered running: the caller's own (an agent token's too), every run for the admin.
  app.route('/api/v1/executions', executionRoutes(runtime));
  app.route('/api/v1', pinRoutes(runtime));
  app.route('/api/v1', overviewRoutes(runtime));
  app.route('/api/v1', serverRoutes(runtime, deps.configFile));
  // Beside pinRoutes' GET /tools/held (one segment after /tools; these take none or two).
  app.route('/api/v1', toolRoutes(runtime));
  app.route('/api/v1', oauthRoutes(runtime));
  app.get(OAUTH_CALLBACK_PATH, oauthCallback(runtime));
  app.get(OAUTH_CLIENT_METADATA_PATH, oauthClientMetadata(runtime));
  app.route(
    '/api/v1/approvals',
    approvalRoutes(runtime.approvals, () => runtime.config().toolPolicy.approvalChannels),
  );
  app.route('/api/v1/inputs', inputRoutes(runtime.inputs));

  app.get('/ui', (c) => c.redirect('/ui/', 301));
  app.route(
    '/ui',
    uiRoutes({
      adminKey: auth.adminKey,
      isAgentToken: (secret) => auth.tokens.verify(secret) !== undefined,
      sessions: auth.sessions!,
      // What waits on the Approvals page: held calls and upstreams' requests for input.
      pendingApprovals: () => runtime.approvals.pendingCount + runtime.inputs.pendingCount,
      approvalChannels: () => runtime.config().toolPolicy.approvalChannels,
      decideRefusal: () =>
        channelRefusal('dashboard', runtime.config().toolPolicy.approvalChannels),
    }),
  );
  app.route('/api/v1/tokens', tokenRoutes(runtime, auth.tokens));
  app.route(
    '/api/v1/activity',
    activityRoutes(() => (runtime.config().activity.enabled ? runtime.activity : undefined)),
  );

  app.get(METRICS_PATH, metricsRoute(runtime, auth));

  app.notFound((c) => restError(c, 404, 'NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`));

  // The one place an unexpected error becomes a response.
  app.onError((error, c) => {
    logger.error({ err: error.message, path: c.req.path }, 'request failed');
    return restError(c, 500, 'EXECUTION_FAILED', 'internal error');
  });

  return app;
}
