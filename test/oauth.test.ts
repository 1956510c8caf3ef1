/**
 * Upstream OAuth end to end: a real authorization server (oidc-provider), a protected MCP
 * server that checks each token's audience, a real `codemux serve` and its CLI, and a headless
 * user agent for the browser's part. Nothing here is mocked.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './fixtures/oauth/authorization-server.ts';
import {
  type ProtectedMcpServer,
  startProtectedMcpServer,
} from './fixtures/oauth/protected-mcp-server.ts';
import { followAuthorization } from './fixtures/oauth/user-agent.ts';
import { type RunningGateway, startGateway } from './gateway.ts';
import { BIN, failingServer, runCli, SERVERS, until, writeConfig } from './helpers.ts';
import { freePort } from './http-servers.ts';

const SIGN_IN = 'secured needs sign-in: run `codemux auth login secured`';
/** The smallest `oauth.refresh_min_interval_ms`: lets 4-second tokens be refreshed in time. */
const REFRESH_FLOOR_MS = 1000;

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const stateOf = async (g: RunningGateway, name: string): Promise<Json> =>
  (await g.rest('GET', '/api/v1/servers')).json.value.servers.find((s: Json) => s.name === name);

const waitForState = (g: RunningGateway, name: string, state: string) =>
  until(`${name} ${state}`, async () => {
    const s = await stateOf(g, name);
    return s?.state === state ? s : undefined;
  });

const whoami = async (g: RunningGateway): Promise<Json> =>
  (
    await g.rest('POST', '/api/v1/code/exec', {
      code: "return call_tool('secured', 'whoami', {})",
    })
  ).json;

/** `codemux auth login` as a user runs it: the URL on stdout, the process waiting. */
function startLogin(configFile: string, ...extra: string[]) {
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'auth', 'login', 'secured', '--config', configFile, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const url = until(
    'the authorization URL',
    async () => /^ {2}(https?:\/\/\S+)$/m.exec(stdout)?.[1],
  );
  return { child, url, exited, out: () => ({ stdout, stderr }) };
}

/** The browser's part: the authorization server's pages, then the gateway's callback. */
async function signIn(g: RunningGateway, authorizationUrl: string) {
  const callback = await followAuthorization(authorizationUrl, `${g.url}/oauth/callback`);
  const response = await fetch(callback);
  return { callback, status: response.status, page: await response.text() };
}

describe('upstream OAuth', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  const gateways: RunningGateway[] = [];
  const start = async (configFile: string) => {
    const g = await startGateway(configFile);
    gateways.push(g);
    return g;
  };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 3600 });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.stop()));
  });
  afterAll(async () => {
    await mcp?.close();
    await as?.close();
  });

  it('a server answering 401 Bearer is needs_auth; its calls fail at once naming the command; no retry loop', async () => {
    // A server that keeps failing beside it: its starts tick with the gateway's retry schedule.
    const broken = failingServer();
    const configFile = writeConfig({
      mcpServers: [
        SERVERS.fixture,
        { name: 'secured', url: mcp.url },
        { name: 'broken', ...broken.entry },
      ],
    });
    const g = await start(configFile);
    const secured = await waitForState(g, 'secured', 'needs_auth');
    expect(secured.last_error).toMatch(/OAuth sign-in/);
    const health: Json = await (await fetch(`${g.url}/healthz`)).json();
    expect(health.upstreams).toMatchObject({ needs_auth: 1 });
    const answer = await whoami(g);
    expect(answer.ok).toBe(true);
    const text = JSON.stringify(answer);
    expect(text).toContain('SERVER_UNAVAILABLE');
    expect(text).toContain(SIGN_IN);
    // Nothing keeps knocking: the count of 401s stays where it is.
    const knocks = mcp.counts.unauthorized;
    // Three more retries of the broken server (backoff 250 ms doubling): any retry loop had its turns.
    const starts = broken.starts();
    await until('three more retries of the broken server', async () =>
      broken.starts() >= starts + 3 ? true : undefined,
    );
    await whoami(g);
    expect(mcp.counts.unauthorized).toBe(knocks);
    const list = await runCli(['servers', 'list', '--config', configFile]);
    expect(list.stdout).toContain('needs_auth');
    expect(list.stdout).toContain(SIGN_IN);
  });

  it('auth login prints the URL and exits 0 once the callback arrived; calls work; status shows expiry and scopes; the state is single-use', async () => {
    const configFile = writeConfig({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    const g = await start(configFile);
    await waitForState(g, 'secured', 'needs_auth');
    const registrations = as.counts.registrations;
    const login = startLogin(configFile);
    const url = new URL(await login.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(mcp.resource);
    expect(url.searchParams.get('redirect_uri')).toBe(`${g.url}/oauth/callback`);
    expect(url.searchParams.get('state')).toBeTruthy();
    const { callback, status, page } = await signIn(g, url.href);
    expect(status).toBe(200);
    expect(page).toContain('Signed in to secured');
    expect(await login.exited).toBe(0);
    expect(login.out().stdout).toContain('signed in to secured');
    // Registered once (DCR), and connected without a restart.
    expect(as.counts.registrations).toBe(registrations + 1);
    await waitForState(g, 'secured', 'ready');
    const answer = await whoami(g);
    expect(JSON.stringify(answer)).toContain(as.accountId);
    const health: Json = await (await fetch(`${g.url}/healthz`)).json();
    expect(health.upstreams).toMatchObject({ ready: 1, needs_auth: 0 });
    const statusRun = await runCli(['auth', 'status', '--config', configFile, '-o', 'json']);
    expect(statusRun.code).toBe(0);
    const item = statusRun.json.items.find((i: Json) => i.server === 'secured');
    expect(item).toMatchObject({ signed_in: true, state: 'ready', client: 'registered' });
    expect(Date.parse(item.expires_at)).toBeGreaterThan(Date.now());
    expect(item.scopes).toContain('mcp:tools');
    const table = await runCli(['auth', 'status', '--config', configFile]);
    expect(table.stdout).toMatch(/secured\s+ready\s+yes/);
    // The same callback again, and a made-up state: 4xx, and nothing changes.
    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('nothing changed');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'not-a-state');
    expect((await fetch(forged)).status).toBe(400);
    expect((await stateOf(g, 'secured')).state).toBe('ready');
    expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
  });

  it('refreshes once after a 401 and retries the request', async () => {
    const configFile = writeConfig({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    const g = await start(configFile);
    await waitForState(g, 'secured', 'needs_auth');
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    expect((await signIn(g, started.json.authorization_url)).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    // Tokens of an hour: this is the gateway's first refresh, so nothing paces it.
    const refreshes = as.counts.token.refresh_token ?? 0;
    mcp.rejectNext(1);
    expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
    expect((as.counts.token.refresh_token ?? 0) - refreshes).toBe(1);
  });

  it('an error from the authorization server: login exits 1 naming it, the callback page says it', async () => {
    const configFile = writeConfig({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    const g = await start(configFile);
    await waitForState(g, 'secured', 'needs_auth');
    as.denyNext('access_denied', 'the user said no');
    const login = startLogin(configFile);
    const { status, page } = await signIn(g, await login.url);
    expect(status).toBe(400);
    expect(page).toContain('access_denied');
    expect(await login.exited).toBe(1);
    expect(login.out().stderr).toContain('access_denied: the user said no');
    expect((await stateOf(g, 'secured')).state).toBe('needs_auth');
  });

  it('a callback naming another issuer (RFC 9207 iss) is refused, and its sign-in ends failed', async () => {
    const configFile = writeConfig({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    const g = await start(configFile);
    await waitForState(g, 'secured', 'needs_auth');
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    const callback = new URL(
      await followAuthorization(started.json.authorization_url, `${g.url}/oauth/callback`),
    );
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    callback.searchParams.set('iss', 'https://mix-up.example.com');
    const response = await fetch(callback);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('not from');
    const flow = await g.rest('GET', `/api/v1/auth/flows/${started.json.flow_id}`);
    expect(flow.json).toMatchObject({ status: 'failed' });
    expect(flow.json.error).toContain('https://mix-up.example.com');
    expect((await stateOf(g, 'secured')).state).toBe('needs_auth');
  });

  it('a callback without iss from an authorization server that promises one (RFC 9207) is refused; login exits 1 naming it', async () => {
    const configFile = writeConfig({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    const g = await start(configFile);
    await waitForState(g, 'secured', 'needs_auth');
    const advertised: Json = await (
      await fetch(`${as.issuer}/.well-known/openid-configuration`)
    ).json();
    expect(advertised.authorization_response_iss_parameter_supported).toBe(true);
    const tokensAsked = as.counts.token.authorization_code ?? 0;
    const login = startLogin(configFile);
    const callback = new URL(await followAuthorization(await login.url, `${g.url}/oauth/callback`));
    expect(callback.searchParams.get('iss')).toBe(as.issuer);
    callback.searchParams.delete('iss');
    const response = await fetch(callback);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('authorization_response_iss_parameter_supported');
    expect(await login.exited).toBe(1);
    expect(login.out().stderr).toContain('the callback has no "iss"');
    expect(login.out().stderr).toContain('authorization_response_iss_parameter_supported');
    // Nothing changed: the code was never exchanged, and the server still needs a sign-in.
    expect(as.counts.token.authorization_code ?? 0).toBe(tokensAsked);
    expect((await stateOf(g, 'secured')).state).toBe('needs_auth');
    const status = (await g.rest('GET', '/api/v1/auth')).json.items[0];
    expect(status).toMatchObject({ signed_in: false });
  });

  it('agent tokens get 403 on every auth route; a stdio server is refused by name', async () => {
    const configFile = writeConfig({
      mcpServers: [SERVERS.fixture, { name: 'secured', url: mcp.url }],
    });
    const g = await start(configFile);
    const created = await g.rest('POST', '/api/v1/tokens', {
      name: 'agent1',
      servers: ['secured'],
    });
    const token = created.json.token ?? created.json.value?.token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (const [method, route] of [
      ['GET', '/api/v1/auth'],
      ['POST', '/api/v1/servers/secured/auth/login'],
      ['POST', '/api/v1/servers/secured/auth/logout'],
      ['GET', '/api/v1/auth/flows/x'],
    ] as const) {
      const answer = await g.rest(method, route, method === 'POST' ? {} : undefined, headers);
      expect(answer.status, route).toBe(403);
    }
    const stdio = await g.rest('POST', '/api/v1/servers/fixture/auth/login', {});
    expect(stdio.status).toBe(400);
    expect(stdio.json.error.message).toContain('fixture is a stdio server');
    const missing = await g.rest('POST', '/api/v1/servers/nope/auth/login', {});
    expect(missing.status).toBe(404);
  });
});

describe('upstream OAuth tokens over time', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let g: RunningGateway;
  let configFile: string;

  const signedIn = async () => {
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    expect(started.status).toBe(201);
    const { status } = await signIn(g, started.json.authorization_url);
    expect(status).toBe(200);
    const flow = await g.rest('GET', `/api/v1/auth/flows/${started.json.flow_id}`);
    expect(flow.json.status).toBe('completed');
    await waitForState(g, 'secured', 'ready');
  };

  beforeAll(async () => {
    // Access tokens of 4 s: refreshed ahead of expiry (a fifth of their life before), which
    // needs refreshes closer together than the default 30 s.
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 4 });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    configFile = writeConfig({
      mcpServers: [
        { name: 'secured', url: mcp.url, oauth: { refresh_min_interval_ms: REFRESH_FLOOR_MS } },
      ],
    });
    g = await startGateway(configFile);
    await waitForState(g, 'secured', 'needs_auth');
    await signedIn();
  });
  afterAll(async () => {
    await g?.stop();
    await mcp?.close();
    await as?.close();
  });

  it('refreshes before expiry: calls keep working across several lifetimes, each with a fresh token', async () => {
    const refreshes = as.counts.token.refresh_token ?? 0;
    const refreshed = () => as.counts.token.refresh_token ?? 0;
    // Three lifetimes: a call in each, then wait for the refresh that ends it.
    for (let i = 0; i < 3; i++) {
      expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
      const before = refreshed();
      await until('the next refresh', async () => (refreshed() > before ? true : undefined));
    }
    expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
    expect(refreshed() - refreshes).toBeGreaterThanOrEqual(2);
    expect(new Set(mcp.acceptedTokens()).size).toBeGreaterThanOrEqual(3);
    expect((await stateOf(g, 'secured')).state).toBe('ready');
  });

  it('a restart with the same data dir keeps the sign-in and the registration', async () => {
    const registrations = as.counts.registrations;
    await g.stop();
    g = await startGateway(configFile);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
    expect(as.counts.registrations).toBe(registrations);
    const keyFile = path.join(path.dirname(configFile), 'data', 'secret_key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('no token appears in any file, log, answer or export', async () => {
    const refreshTokens = as.issuedRefreshTokens();
    expect(refreshTokens.length).toBeGreaterThan(1);
    // Access tokens are JWTs: each one's signature part is unique to it; refresh tokens whole.
    const tokens = [
      ...mcp.acceptedTokens().map((token) => token.split('.').at(-1)!),
      ...refreshTokens,
    ];
    expect(tokens.length).toBeGreaterThan(refreshTokens.length);
    const places: Array<[string, string]> = [['gateway output', g.output()]];
    const dataDir = path.join(path.dirname(configFile), 'data');
    for (const file of fs.readdirSync(dataDir, { recursive: true }) as string[]) {
      const full = path.join(dataDir, file);
      if (fs.statSync(full).isFile()) places.push([file, fs.readFileSync(full).toString('latin1')]);
    }
    for (const route of [
      '/api/v1/auth',
      '/api/v1/servers',
      '/api/v1/activity?limit=500',
      '/api/v1/servers/secured/tools',
    ]) {
      places.push([route, JSON.stringify((await g.rest('GET', route)).json)]);
    }
    const status = await runCli(['auth', 'status', '--config', configFile, '-o', 'json']);
    places.push(['auth status', status.stdout + status.stderr]);
    for (const secret of tokens) {
      for (const [where, text] of places) expect(text.includes(secret), where).toBe(false);
    }
  });

  it('a revoked refresh token returns the server to needs_auth with the reason', async () => {
    as.revokeRefreshTokens();
    const secured = await until(
      'needs_auth after the refresh was refused',
      async () => {
        const s = await stateOf(g, 'secured');
        return s.state === 'needs_auth' ? s : undefined;
      },
      20_000,
    );
    expect(secured.last_error).toMatch(/refused the refresh \(invalid_grant/);
    expect(JSON.stringify(await whoami(g))).toContain(SIGN_IN);
    const status = await runCli(['auth', 'status', '--config', configFile, '-o', 'json']);
    const item = status.json.items[0];
    expect(item).toMatchObject({ signed_in: false, state: 'needs_auth' });
    expect(item.reason).toMatch(/invalid_grant/);
    // Signing in again brings it back, without a restart.
    await signedIn();
    expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
  });

  it('auth logout forgets the tokens: needs_auth at once', async () => {
    const out = await runCli(['auth', 'logout', 'secured', '--config', configFile]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('signed out of secured');
    await waitForState(g, 'secured', 'needs_auth');
    expect(JSON.stringify(await whoami(g))).toContain(SIGN_IN);
  });
});

describe('upstream OAuth with a configured client, and over SSE', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let sse: ProtectedMcpServer;
  let port: number;
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    port = await freePort();
    const redirect = `http://127.0.0.1:${port}/oauth/callback`;
    as = await startAuthorizationServer({
      clients: [
        { client_id: 'codemux-public', redirect_uris: [redirect] },
        {
          client_id: 'codemux-private',
          client_secret: 'private-s3cret',
          redirect_uris: [redirect],
        },
      ],
    });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    sse = await startProtectedMcpServer({
      issuer: as.issuer,
      jwksUrl: as.jwksUrl,
      transport: 'sse',
    });
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.stop()));
  });
  afterAll(async () => {
    await sse?.close();
    await mcp?.close();
    await as?.close();
  });

  it.each([
    ['a public client (client_id alone: PKCE only)', { client_id: 'codemux-public' }],
    [
      'a confidential client (its secret from the environment)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${VAR} syntax
      { client_id: 'codemux-private', client_secret: '${PRIVATE_SECRET}' },
    ],
  ])('signs in with %s, registering nothing', async (_what, oauth) => {
    const configFile = writeConfig({
      mcpServers: [{ name: 'secured', url: mcp.url, oauth }],
    });
    const g = await startGateway(configFile, {
      port,
      env: { ...process.env, PRIVATE_SECRET: 'private-s3cret' },
    });
    gateways.push(g);
    // Configured for OAuth and not signed in: needs_auth without even asking the server.
    const unauthorized = mcp.counts.unauthorized;
    const secured = await waitForState(g, 'secured', 'needs_auth');
    expect(secured.last_error).toBe('not signed in yet');
    expect(mcp.counts.unauthorized).toBe(unauthorized);
    const registrations = as.counts.registrations;
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    expect(new URL(started.json.authorization_url).searchParams.get('client_id')).toBe(
      oauth.client_id,
    );
    expect((await signIn(g, started.json.authorization_url)).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await whoami(g))).toContain(oauth.client_id);
    expect(as.counts.registrations).toBe(registrations);
    const status = (await g.rest('GET', '/api/v1/auth')).json.items[0];
    expect(status).toMatchObject({ client: 'configured', signed_in: true });
    expect(JSON.stringify(status)).not.toContain('private-s3cret');
  });

  it('signs in to an SSE server', async () => {
    const configFile = writeConfig({
      mcpServers: [{ name: 'secured', protocol: 'sse', url: sse.url }],
    });
    const g = await startGateway(configFile, { port });
    gateways.push(g);
    await waitForState(g, 'secured', 'needs_auth');
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    expect(new URL(started.json.authorization_url).searchParams.get('resource')).toBe(sse.resource);
    expect((await signIn(g, started.json.authorization_url)).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await whoami(g))).toContain(as.accountId);
  });
});
