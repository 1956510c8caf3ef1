/**
 * The OAuth fixtures (a real oidc-provider authorization server, a real protected MCP server, a
 * headless user agent) proven with the MCP SDK's own client auth and no codemux code: sign-in
 * through a 401, DCR, PKCE S256 with `resource` and `state`, refresh (after expiry and after a
 * 401), rotation and revocation, denial, audience and scope checks, pre-registered clients,
 * OpenID discovery, SSE.
 */

import {
  discoverAuthorizationServerMetadata,
  discoverOAuthServerInfo,
  exchangeAuthorization,
  type OAuthClientProvider,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './fixtures/oauth/authorization-server.ts';
import {
  type ProtectedMcpServer,
  startProtectedMcpServer,
} from './fixtures/oauth/protected-mcp-server.ts';
import { followAuthorization, UserAgent } from './fixtures/oauth/user-agent.ts';
import { initializeBody } from './helpers.ts';

// Never requested: the user agent stops at it and the test hands the code to the transport.
const REDIRECT_URL = 'http://127.0.0.1:53682/oauth/callback';
// The short-lived tokens of the refresh test; the other tests' tokens live an hour.
const SHORT_ACCESS_TOKEN_TTL_SECONDS = 3;
const EXPIRY_MARGIN_MS = 1500;
const CONFIDENTIAL = {
  client_id: 'confidential-client',
  client_secret: 'a-secret-of-32-characters-or-so',
};

/** An OAuthClientProvider that keeps everything in memory and records what the SDK fetched. */
class MemoryClientProvider implements OAuthClientProvider {
  readonly redirectUrl = REDIRECT_URL;
  readonly stateValue = crypto.randomUUID();
  readonly fetched: Array<{ url: string; authorization: string | null }> = [];
  authorizationUrl: URL | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  constructor(preRegistered?: OAuthClientInformationMixed) {
    this.#client = preRegistered;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'oauth-fixtures-test',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  readonly fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    this.fetched.push({ url, authorization: new Headers(init?.headers).get('authorization') });
    return fetch(input, init);
  };

  state = () => this.stateValue;
  clientInformation = () => this.#client;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.#client = info;
  };
  tokens = () => this.#tokens;
  saveTokens = (tokens: OAuthTokens) => {
    this.#tokens = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.#verifier = verifier;
  };
  codeVerifier = () => this.#verifier;
}

const open: Client[] = [];

function transportFor(server: ProtectedMcpServer, provider: MemoryClientProvider) {
  const options = { authProvider: provider, fetch: provider.fetch };
  return server.url.endsWith('/sse')
    ? new SSEClientTransport(new URL(server.url), options)
    : new StreamableHTTPClientTransport(new URL(server.url), options);
}

async function connect(server: ProtectedMcpServer, provider: MemoryClientProvider) {
  const client = new Client({ name: 'oauth-fixtures-test', version: '1.0.0' });
  open.push(client);
  await client.connect(transportFor(server, provider));
  return client;
}

/** The first connection gets 401 and an authorization URL; the SDK is left at REDIRECT. */
async function startSignIn(server: ProtectedMcpServer, provider: MemoryClientProvider) {
  const transport = transportFor(server, provider);
  const client = new Client({ name: 'oauth-fixtures-test', version: '1.0.0' });
  await expect(client.connect(transport)).rejects.toThrow(UnauthorizedError);
  await client.close();
  expect(provider.authorizationUrl).toBeDefined();
  return { transport, authorizationUrl: provider.authorizationUrl!.href };
}

/** Signs in as a user would (401, authorization in the user agent, callback), then connects. */
async function signIn(
  server: ProtectedMcpServer,
  provider: MemoryClientProvider,
  agent = new UserAgent(),
) {
  const { transport, authorizationUrl } = await startSignIn(server, provider);
  const callback = new URL(await agent.followAuthorization(authorizationUrl, REDIRECT_URL));
  expect(callback.searchParams.get('state')).toBe(provider.stateValue);
  await transport.finishAuth(callback.searchParams.get('code') ?? '');
  return connect(server, provider);
}

async function whoami(client: Client) {
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  return result.structuredContent as { sub: string; client_id: string; scope: string };
}

function postInitialize(server: ProtectedMcpServer, token?: string) {
  return fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: initializeBody(),
  });
}

/** Tokens for `resource` with `scope`, by the SDK's auth functions one at a time. */
async function authorizeDirectly(resource: string, scope: string) {
  const metadata = await discoverAuthorizationServerMetadata(as.issuer);
  const clientMetadata = new MemoryClientProvider().clientMetadata;
  const clientInformation = await registerClient(as.issuer, { metadata, clientMetadata, scope });
  const { authorizationUrl, codeVerifier } = await startAuthorization(as.issuer, {
    metadata,
    clientInformation,
    redirectUrl: REDIRECT_URL,
    scope,
    state: crypto.randomUUID(),
    resource: new URL(resource),
  });
  const callback = new URL(await followAuthorization(authorizationUrl.href, REDIRECT_URL));
  const tokens = await exchangeAuthorization(as.issuer, {
    metadata,
    clientInformation,
    authorizationCode: callback.searchParams.get('code') ?? '',
    codeVerifier,
    redirectUri: REDIRECT_URL,
    resource: new URL(resource),
  });
  const refresh = (refreshToken: string) =>
    refreshAuthorization(as.issuer, {
      metadata,
      clientInformation,
      refreshToken,
      resource: new URL(resource),
    });
  return { tokens, refresh };
}

async function tokenFor(resource: string, scope: string): Promise<string> {
  return (await authorizeDirectly(resource, scope)).tokens.access_token;
}

async function untilExpired(accessToken: string) {
  const { exp = 0 } = decodeJwt(accessToken);
  const waitMs = exp * 1000 + EXPIRY_MARGIN_MS - Date.now();
  // A wait for time itself on purpose: the token's expiry (3 s lifetime) is the thing under test.
  if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
}

let as: AuthorizationServer;
let mcp: ProtectedMcpServer;
// Servers a single test starts; closed with the others.
const extra: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  as = await startAuthorizationServer({
    scopes: ['mcp:tools', 'mcp:admin'],
    clients: [
      { ...CONFIDENTIAL, redirect_uris: [REDIRECT_URL] },
      { client_id: 'public-client', redirect_uris: [REDIRECT_URL] },
    ],
  });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
});

afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await Promise.allSettled([mcp?.close(), ...extra.map((server) => server.close())]);
  await as?.close();
});

describe('the protected MCP server', () => {
  it('answers 401 with its resource metadata to a request without a token', async () => {
    const response = await postInitialize(mcp);
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${mcp.resourceMetadataUrl}"`);
    expect(challenge).not.toContain('error=');
    expect(mcp.resourceMetadataUrl).toBe(
      mcp.url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'),
    );
  });

  it('publishes RFC 9728 metadata at the path-suffixed and the root well-known URL', async () => {
    for (const url of [
      mcp.resourceMetadataUrl,
      new URL('/.well-known/oauth-protected-resource', mcp.url),
    ]) {
      const metadata = await (await fetch(url)).json();
      expect(metadata).toEqual({
        resource: mcp.url,
        authorization_servers: [as.issuer],
        scopes_supported: ['mcp:tools'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('answers 401 invalid_token to a token that is not a JWT of its issuer', async () => {
    const response = await postInitialize(mcp, 'not-a-token');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 403 insufficient_scope to a token without a required scope', async () => {
    const admin = await startProtectedMcpServer({
      issuer: as.issuer,
      scopes: ['mcp:tools', 'mcp:admin'],
    });
    extra.push(admin);
    const response = await postInitialize(admin, await tokenFor(admin.url, 'mcp:tools'));
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp:tools mcp:admin"');
    expect(admin.counts.forbidden).toBe(1);
    const both = await postInitialize(admin, await tokenFor(admin.url, 'mcp:tools mcp:admin'));
    expect(both.status).toBe(200);
    await both.body?.cancel();
  });
});

describe('sign-in with the SDK client', () => {
  it('goes 401, DCR, authorization with PKCE S256, resource and state, code, then whoami', async () => {
    const registrations = as.counts.registrations;
    const provider = new MemoryClientProvider();
    const { transport, authorizationUrl } = await startSignIn(mcp, provider);
    const params = new URL(authorizationUrl).searchParams;
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('resource')).toBe(mcp.url);
    expect(params.get('state')).toBe(provider.stateValue);
    expect(params.get('scope')).toBe('mcp:tools');

    const callback = new URL(await followAuthorization(authorizationUrl, REDIRECT_URL));
    expect(callback.searchParams.get('state')).toBe(provider.stateValue);
    await transport.finishAuth(callback.searchParams.get('code') ?? '');
    const client = await connect(mcp, provider);

    const clientId = provider.clientInformation()?.client_id;
    expect(await whoami(client)).toEqual({
      sub: as.accountId,
      client_id: clientId,
      scope: 'mcp:tools',
    });
    expect(as.counts.registrations).toBe(registrations + 1);
    expect(as.registeredClients().map((c) => c.client_id)).toContain(clientId);
    const tokens = provider.tokens();
    expect(tokens?.refresh_token).toBeTruthy();
    expect(decodeJwt(tokens?.access_token ?? '')).toMatchObject({ aud: mcp.url, iss: as.issuer });
    expect(mcp.acceptedTokens()).toContain(tokens?.access_token);
    // The SDK found the RFC 8414 document and never needed OpenID discovery.
    const urls = provider.fetched.map((f) => f.url);
    expect(urls).toContain(`${as.issuer}/.well-known/oauth-authorization-server`);
    expect(urls).not.toContain(`${as.issuer}/.well-known/openid-configuration`);
  });

  it('refreshes an expired access token (rotating the refresh token) and the call goes on', async () => {
    const short = await startAuthorizationServer({
      accessTokenTtlSeconds: SHORT_ACCESS_TOKEN_TTL_SECONDS,
    });
    extra.push(short);
    const server = await startProtectedMcpServer({ issuer: short.issuer, jwksUrl: short.jwksUrl });
    extra.push(server);
    const provider = new MemoryClientProvider();
    const client = await signIn(server, provider);
    const before = provider.tokens()!;
    expect(before.expires_in).toBe(SHORT_ACCESS_TOKEN_TTL_SECONDS);
    await untilExpired(before.access_token);
    const refreshes = short.counts.token.refresh_token ?? 0;
    const authorizations = short.counts.authorizations;

    expect((await whoami(client)).sub).toBe(short.accountId);
    const after = provider.tokens()!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBeTruthy();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    // At least one: under heavy load the new token may expire too before the call.
    expect(short.counts.token.refresh_token).toBeGreaterThan(refreshes);
    expect(short.counts.authorizations).toBe(authorizations);
    expect(server.acceptedTokens()).toContain(after.access_token);
    const stale = await postInitialize(server, before.access_token);
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refreshes once after a 401 to a valid token, then goes on', async () => {
    const provider = new MemoryClientProvider();
    const client = await signIn(mcp, provider);
    const before = provider.tokens()!;
    const refreshes = as.counts.token.refresh_token ?? 0;
    mcp.rejectNext(1);
    expect((await whoami(client)).sub).toBe(as.accountId);
    expect(as.counts.token.refresh_token).toBe(refreshes + 1);
    expect(provider.tokens()?.access_token).not.toBe(before.access_token);
  });

  it('refuses a token whose audience is another resource', async () => {
    const elsewhere = new URL('/other/mcp', mcp.url).href;
    const token = await tokenFor(elsewhere, 'mcp:tools');
    expect(decodeJwt(token)).toMatchObject({ aud: elsewhere, scope: 'mcp:tools' });
    const unauthorized = mcp.counts.unauthorized;
    const response = await postInitialize(mcp, token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(mcp.counts.unauthorized).toBe(unauthorized + 1);
    expect(mcp.acceptedTokens()).not.toContain(token);
  });

  it('signs in a pre-registered confidential client with client_secret_basic', async () => {
    const registrations = as.counts.registrations;
    const provider = new MemoryClientProvider({ ...CONFIDENTIAL, issuer: as.issuer });
    const client = await signIn(mcp, provider);
    expect((await whoami(client)).client_id).toBe(CONFIDENTIAL.client_id);
    expect(as.counts.registrations).toBe(registrations);
    const tokenRequests = provider.fetched.filter((f) => f.url === `${as.issuer}/token`);
    expect(tokenRequests.length).toBeGreaterThan(0);
    for (const request of tokenRequests) expect(request.authorization).toMatch(/^Basic /);
  });

  it('signs in a pre-registered public client with PKCE only', async () => {
    const provider = new MemoryClientProvider({ client_id: 'public-client', issuer: as.issuer });
    const client = await signIn(mcp, provider);
    expect((await whoami(client)).client_id).toBe('public-client');
  });

  it('denyNext ends the next authorization with error=access_denied and the same state', async () => {
    const agent = new UserAgent();
    const { authorizationUrl } = await startSignIn(mcp, new MemoryClientProvider());
    const state = new URL(authorizationUrl).searchParams.get('state');
    const first = new URL(await agent.followAuthorization(authorizationUrl, REDIRECT_URL));
    expect(first.searchParams.get('code')).toBeTruthy();
    // This user agent is signed in and the client holds a grant: the denial must still happen.
    as.denyNext('access_denied', 'the user said no');
    const denied = new URL(await agent.followAuthorization(authorizationUrl, REDIRECT_URL));
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('error_description')).toBe('the user said no');
    expect(denied.searchParams.get('state')).toBe(state);
    expect(denied.searchParams.has('code')).toBe(false);
    // Only the next one: the same authorization gets a code again.
    const granted = new URL(await agent.followAuthorization(authorizationUrl, REDIRECT_URL));
    expect(granted.searchParams.get('code')).toBeTruthy();
    expect(granted.searchParams.get('state')).toBe(state);
  });

  it('reusing a rotated refresh token fails with invalid_grant and ends the whole grant', async () => {
    const { tokens, refresh } = await authorizeDirectly(mcp.url, 'mcp:tools');
    const rotated = await refresh(tokens.refresh_token ?? '');
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    await expect(refresh(tokens.refresh_token ?? '')).rejects.toBeInstanceOf(InvalidGrantError);
    // oidc-provider's reuse detection: the rotated token dies with the grant.
    await expect(refresh(rotated.refresh_token ?? '')).rejects.toBeInstanceOf(InvalidGrantError);
  });

  it('after revokeRefreshTokens a refresh fails with invalid_grant', async () => {
    const { tokens, refresh } = await authorizeDirectly(mcp.url, 'mcp:tools');
    expect(as.revokeRefreshTokens()).toBeGreaterThan(0);
    const refreshing = refresh(tokens.refresh_token ?? '');
    await expect(refreshing).rejects.toBeInstanceOf(InvalidGrantError);
    await expect(refreshing).rejects.toMatchObject({ errorCode: 'invalid_grant' });
  });
});

describe('the user agent', () => {
  it('says where an authorization broke, with the status and an excerpt, without the query', async () => {
    const url = new URL('/auth', as.issuer);
    url.search = new URLSearchParams({
      client_id: 'nobody',
      response_type: 'code',
      redirect_uri: REDIRECT_URL,
      state: 'state-that-must-not-leak',
    }).toString();
    const failure = await followAuthorization(url.href, REDIRECT_URL).catch((e: unknown) => e);
    expect(String(failure)).toMatch(
      /HTTP 400 at http:\/\/127\.0\.0\.1:\d+\/auth: invalid_client: client is invalid/,
    );
    expect(String(failure)).not.toContain('state-that-must-not-leak');
  });
});

describe('dynamic client registration', () => {
  const REGISTRATIONS: Array<{ name: string; metadata: Record<string, unknown>; status: number }> =
    [
      { name: 'a public client', metadata: { token_endpoint_auth_method: 'none' }, status: 201 },
      {
        name: 'client_secret_basic',
        metadata: { token_endpoint_auth_method: 'client_secret_basic' },
        status: 201,
      },
      {
        name: 'client_secret_post',
        metadata: { token_endpoint_auth_method: 'client_secret_post' },
        status: 201,
      },
      { name: 'no auth method (client_secret_basic)', metadata: {}, status: 201 },
      {
        name: 'scope mcp:tools',
        metadata: { token_endpoint_auth_method: 'none', scope: 'mcp:tools' },
        status: 201,
      },
      {
        name: 'an unknown scope',
        metadata: { token_endpoint_auth_method: 'none', scope: 'mcp:other' },
        status: 400,
      },
      {
        name: 'a native loopback client',
        metadata: { application_type: 'native', token_endpoint_auth_method: 'none' },
        status: 201,
      },
      {
        name: 'the implicit grant',
        metadata: { grant_types: ['implicit'], response_types: ['id_token'] },
        status: 400,
      },
      { name: 'no redirect_uris', metadata: { redirect_uris: undefined }, status: 400 },
    ];

  it.each(REGISTRATIONS)('answers $name with $status', async ({ metadata: extra, status }) => {
    const body = {
      client_name: 'dcr-test',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...extra,
    };
    const response = await fetch(`${as.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(answer)).toBe(status);
    if (status !== 201) return;
    const confidential = answer.token_endpoint_auth_method !== 'none';
    expect(Boolean(answer.client_secret)).toBe(confidential);
  });
});

describe('other shapes', () => {
  it('without RFC 8414 metadata the SDK falls back to OpenID discovery', async () => {
    const oidcOnly = await startAuthorizationServer({ oauthMetadata: false });
    extra.push(oidcOnly);
    const server = await startProtectedMcpServer({ issuer: oidcOnly.issuer });
    extra.push(server);
    const openid = oidcOnly.counts.metadata.openid;
    const info = await discoverOAuthServerInfo(server.url);
    expect(info.authorizationServerUrl).toBe(oidcOnly.issuer);
    expect(info.authorizationServerMetadata?.registration_endpoint).toBe(`${oidcOnly.issuer}/reg`);
    expect(oidcOnly.counts.metadata.openid).toBe(openid + 1);
    expect(oidcOnly.counts.metadata.oauth).toBe(0);
  });

  it('signs in and calls whoami over SSE', async () => {
    const server = await startProtectedMcpServer({ issuer: as.issuer, transport: 'sse' });
    extra.push(server);
    expect(server.url).toMatch(/\/sse$/);
    const provider = new MemoryClientProvider();
    const client = await signIn(server, provider);
    expect((await whoami(client)).sub).toBe(as.accountId);
    expect(decodeJwt(provider.tokens()!.access_token).aud).toBe(server.url);
  });

  it('refuses the tokens of an issuer whose clock is a minute behind as expired', async () => {
    const skewed = await startAuthorizationServer({
      accessTokenTtlSeconds: 30,
      clockSkewSeconds: -60,
    });
    extra.push(skewed);
    const server = await startProtectedMcpServer({ issuer: skewed.issuer });
    extra.push(server);
    const provider = new MemoryClientProvider();
    const failure = await signIn(server, provider).then(
      () => new Error('signed in'),
      (error: unknown) => error,
    );
    expect(String(failure)).toMatch(/401/);
    const { exp = 0 } = decodeJwt(provider.tokens()!.access_token);
    expect(exp * 1000).toBeLessThan(Date.now());
    expect(server.acceptedTokens()).toEqual([]);
  });
});
