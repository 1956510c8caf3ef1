/** @module /ui/: sign-in (admin key -> session cookie), the pages, static assets. */
import { timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Child } from 'hono/jsx';
import { ApprovalsBody } from './approvals-page.tsx';
import { ASSET_MAX_AGE_S, UiAssets } from './assets.ts';
import { LANDING_PAGE, Page, type Section } from './layout.tsx';
import { OverviewBody } from './overview-page.tsx';
import {
  ActivityBody,
  ActivityRecordBody,
  CodeToolBody,
  CodeToolsBody,
  PlaygroundBody,
  SignInBody,
  TokensBody,
} from './pages.tsx';
import { ScriptBody, ScriptsBody } from './scripts-page.tsx';
import { securityHeaders } from './security-headers.ts';
import { ServerBody, ServersBody } from './servers-page.tsx';
import { type DashboardSessions, SESSION_COOKIE, SESSION_TTL_MS } from './sessions.ts';
import { ToolBody, ToolsBody } from './tools-page.tsx';

export interface UiDeps {
  adminKey: string;
  /** True when `secret` is a valid agent token (they may not sign in: admin only). */
  isAgentToken(secret: string): boolean;
  sessions: DashboardSessions;
  assets?: UiAssets;
  /** Approvals pending on this gateway, shown on the navigation's "Approvals" link. */
  pendingApprovals?: () => number;
  /**
   * Why the dashboard may not decide approvals (tool_policy.approval_channels leaves out
   * "dashboard"; read at each page: hot-reloaded), or undefined when it may.
   */
  decideRefusal?: () => string | undefined;
  /** tool_policy.approval_channels now: pages that wait on an approval name only the open ways to decide it. */
  approvalChannels?: () => readonly string[];
}

const AGENT_REFUSED =
  'Agent tokens cannot sign in to the dashboard; sign in with the admin API key.';
const KEY_REFUSED = 'That API key is not valid.';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A form post from another origin (login CSRF) is refused; browsers always send Origin on POST. */
function foreignPost(c: Context): boolean {
  const origin = c.req.header('origin');
  return origin !== undefined && origin !== new URL(c.req.url).origin;
}

export function uiRoutes(deps: UiDeps): Hono {
  const { sessions } = deps;
  const assets = deps.assets ?? new UiAssets();
  const ui = new Hono();
  ui.use('*', securityHeaders);

  const render = (
    c: Context,
    title: string,
    page: string,
    body: Child,
    section?: Section,
    data?: Record<string, string>,
    status: 200 | 401 | 403 = 200,
  ) =>
    c.html(
      <Page
        title={title}
        assets={assets.urls}
        section={section}
        page={page}
        data={section === undefined ? data : channelsData(data)}
        pendingApprovals={section === undefined ? 0 : (deps.pendingApprovals?.() ?? 0)}
      >
        {body}
      </Page>,
      status,
    );
  /**
   * `data` plus `channels` (space-separated), which the client reads when it says how to
   * decide; signed-in pages only (the sign-in page tells nothing of the config).
   */
  const channelsData = (data: Record<string, string> = {}) => {
    const channels = deps.approvalChannels?.();
    return channels === undefined ? data : { channels: channels.join(' '), ...data };
  };
  const signInPage = (c: Context, error?: string, status: 200 | 401 | 403 = 200) =>
    render(c, 'Sign in', 'sign-in', <SignInBody error={error} />, undefined, undefined, status);

  /** Checks a presented key; on the admin key starts a session and sets its cookie. */
  const signIn = (
    c: Context,
    key: string,
  ): { ok: true } | { ok: false; status: 401 | 403; message: string } => {
    if (sameSecret(key, deps.adminKey)) {
      setCookie(c, SESSION_COOKIE, sessions.create({ kind: 'admin' }), {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: new URL(c.req.url).protocol === 'https:',
        maxAge: Math.floor(SESSION_TTL_MS / 1000),
      });
      return { ok: true };
    }
    if (deps.isAgentToken(key)) return { ok: false, status: 403, message: AGENT_REFUSED };
    return { ok: false, status: 401, message: KEY_REFUSED };
  };

  ui.get('/assets/:file', (c) => {
    const asset = assets.get(c.req.param('file'));
    if (!asset) return c.text('not found', 404);
    return c.body(new Uint8Array(asset.body), 200, {
      'content-type': asset.type,
      'cache-control': `public, max-age=${ASSET_MAX_AGE_S}, immutable`,
    });
  });

  ui.get('/login', (c) => signInPage(c));
  ui.post('/login', async (c) => {
    if (foreignPost(c)) return c.text('cross-origin sign-in refused', 403);
    const form = await c.req.parseBody();
    const key = typeof form.apikey === 'string' ? form.apikey.trim() : '';
    if (!key) return signInPage(c, 'Enter the API key.', 401);
    const result = signIn(c, key);
    if (!result.ok) return signInPage(c, result.message, result.status);
    return c.redirect(LANDING_PAGE, 303);
  });
  ui.post('/logout', (c) => {
    if (foreignPost(c)) return c.text('cross-origin sign-out refused', 403);
    sessions.end(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/ui/login', 303);
  });

  // Everything below needs a session; /ui/?apikey=KEY starts one once and drops the key from the URL.
  ui.use('*', async (c, next) => {
    const key = c.req.query('apikey');
    if (key !== undefined && c.req.method === 'GET') {
      const result = signIn(c, key);
      if (!result.ok) return signInPage(c, result.message, result.status);
      const url = new URL(c.req.url);
      url.searchParams.delete('apikey');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (!sessions.caller(getCookie(c, SESSION_COOKIE))) {
      if (c.req.method === 'GET') return c.redirect('/ui/login', 303);
      return c.text('sign in first', 401);
    }
    // /ui/ itself (the mount's own path is /ui): the first page.
    if (c.req.path === '/ui/') return c.redirect(LANDING_PAGE, 303);
    await next();
  });

  ui.get('/overview', (c) => render(c, 'Overview', 'overview', <OverviewBody />, 'overview'));
  ui.get('/servers', (c) => render(c, 'Servers', 'servers', <ServersBody />, 'servers'));
  ui.get('/servers/:name', (c) => {
    const name = c.req.param('name');
    return render(c, name, 'server', <ServerBody name={name} />, 'servers', { name });
  });
  ui.get('/tools', (c) => render(c, 'Tools', 'tools', <ToolsBody />, 'tools'));
  ui.get('/tools/:server/:tool', (c) => {
    const server = c.req.param('server');
    const tool = c.req.param('tool');
    return render(
      c,
      `${server}.${tool}`,
      'tool',
      <ToolBody server={server} tool={tool} />,
      'tools',
      {
        server,
        tool,
      },
    );
  });
  ui.get('/code-tools', (c) =>
    render(c, 'Code tools', 'code-tools', <CodeToolsBody />, 'code-tools'),
  );
  ui.get('/code-tools/:name', (c) => {
    const name = c.req.param('name');
    return render(c, name, 'code-tool', <CodeToolBody name={name} />, 'code-tools', { name });
  });
  ui.get('/playground', (c) =>
    render(c, 'Playground', 'playground', <PlaygroundBody />, 'playground'),
  );
  ui.get('/activity', (c) => render(c, 'Activity', 'activity', <ActivityBody />, 'activity'));
  ui.get('/activity/:id', (c) => {
    const id = c.req.param('id');
    return render(
      c,
      `Record ${id}`,
      'activity-record',
      <ActivityRecordBody id={id} />,
      'activity',
      { id },
    );
  });
  ui.get('/approvals', (c) => {
    const closed = deps.decideRefusal?.();
    return render(c, 'Approvals', 'approvals', <ApprovalsBody closed={closed} />, 'approvals', {
      decide: closed === undefined ? 'on' : 'off',
    });
  });
  ui.get('/tokens', (c) => render(c, 'Tokens', 'tokens', <TokensBody />, 'tokens'));
  ui.get('/scripts', (c) => render(c, 'Scripts', 'scripts', <ScriptsBody />, 'scripts'));
  ui.get('/scripts/:name', (c) => {
    const name = c.req.param('name');
    return render(c, name, 'script', <ScriptBody name={name} />, 'scripts', { name });
  });

  return ui;
}
