/**
 * codemux as a conformant OAuth client of its upstreams (issue 38; DESIGN "A conformant MCP
 * client"): `application_type` in Dynamic Client Registration (SEP-837), the scope of a
 * `WWW-Authenticate` challenge, step-up on 403 insufficient_scope (bounded), the authorization
 * server's `issuer` checked against its metadata URL (RFC 8414 3.3), and client ID metadata
 * documents (SEP-991). A real authorization server (oidc-provider), the protected MCP server
 * fixture and the gateway's app in this process; a small HTTP server where oidc-provider cannot
 * misbehave the way a case needs.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './fixtures/oauth/authorization-server.ts';
import { listenOnLoopback } from './fixtures/oauth/loopback.ts';
import {
  type ProtectedMcpServer,
  startProtectedMcpServer,
} from './fixtures/oauth/protected-mcp-server.ts';
import { followAuthorization } from './fixtures/oauth/user-agent.ts';
import { until } from './helpers.ts';
import { type InProcessGateway, startInProcess } from './in-process.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const METADATA_URL = 'https://codemux.test/oauth/client-metadata.json';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function servers(
  as: Parameters<typeof startAuthorizationServer>[0],
  mcp: Omit<Parameters<typeof startProtectedMcpServer>[0], 'issuer'>,
): Promise<{ as: AuthorizationServer; mcp: ProtectedMcpServer }> {
  const authorization = await startAuthorizationServer(as);
  closers.push(() => authorization.close());
  const protectedServer = await startProtectedMcpServer({
    issuer: authorization.issuer,
    jwksUrl: authorization.jwksUrl,
    ...mcp,
  });
  closers.push(() => protectedServer.close());
  return { as: authorization, mcp: protectedServer };
}

async function gateway(config: Record<string, unknown>): Promise<InProcessGateway> {
  const g = await startInProcess(config);
  closers.push(() => g.stop());
  return g;
}

const stateOf = async (g: InProcessGateway, name: string): Promise<Json> =>
  (await g.rest('GET', '/api/v1/servers')).json.value.servers.find((s: Json) => s.name === name);

const waitForState = (g: InProcessGateway, name: string, state: string) =>
  until(`${name} ${state}`, async () => {
    const s = await stateOf(g, name);
    return s?.state === state ? s : undefined;
  });

/** Starts a sign-in through REST: the authorization URL, parsed. */
async function startSignIn(g: InProcessGateway, name = 'secured'): Promise<URL> {
  const started = await g.rest('POST', `/api/v1/servers/${name}/auth/login`, {});
  expect(started.status, JSON.stringify(started.json)).toBe(201);
  return new URL(started.json.authorization_url);
}

/** The browser's part: the authorization server's pages, then the gateway's callback. */
async function finishSignIn(g: InProcessGateway, authorizationUrl: URL): Promise<Response> {
  const callback = new URL(
    await followAuthorization(authorizationUrl.href, `${g.url}/oauth/callback`),
  );
  return g.request(`${callback.pathname}${callback.search}`);
}

const call = async (g: InProcessGateway, tool: string, args: Json = {}): Promise<Json> =>
  (
    await g.rest('POST', '/api/v1/code/exec', {
      code: `return call_tool('secured', ${JSON.stringify(tool)}, ${JSON.stringify(args)})`,
    })
  ).json;

describe('codemux as an OAuth client of its upstreams', () => {
  it("registers as a native app (SEP-837) and asks for the challenge's scope, not every scope the server supports", async () => {
    const { as, mcp } = await servers(
      { scopes: ['mcp:tools', 'mcp:extra'] },
      { scopes: ['mcp:tools'], scopesSupported: ['mcp:tools', 'mcp:extra'] },
    );
    const g = await gateway({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    await waitForState(g, 'secured', 'needs_auth');
    const url = await startSignIn(g);
    // The 401 said scope="mcp:tools"; scopes_supported would add mcp:extra.
    expect(url.searchParams.get('scope')).toBe('mcp:tools');
    const [client] = as.registeredClients() as Json[];
    expect(client.application_type).toBe('native');
    expect(client.redirect_uris).toEqual([`${g.url}/oauth/callback`]);
    expect((await finishSignIn(g, url)).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await call(g, 'whoami'))).toContain('"scope\\":\\"mcp:tools\\"');
  });

  it('oauth.scopes come first; without them or a challenge scope, scopes_supported', async () => {
    const { mcp } = await servers(
      { scopes: ['mcp:tools', 'mcp:extra'] },
      { scopes: ['mcp:tools'], scopesSupported: ['mcp:tools', 'mcp:extra'] },
    );
    const g = await gateway({
      mcpServers: [
        { name: 'secured', url: mcp.url, oauth: { scopes: ['mcp:extra', 'mcp:tools'] } },
        // Never tried before a sign-in (an oauth block): no challenge seen.
        { name: 'quiet', url: mcp.url, oauth: {} },
      ],
    });
    await waitForState(g, 'secured', 'needs_auth');
    expect((await startSignIn(g)).searchParams.get('scope')).toBe('mcp:extra mcp:tools');
    expect((await startSignIn(g, 'quiet')).searchParams.get('scope')).toBe('mcp:tools mcp:extra');
  });

  it('a 403 insufficient_scope is a step-up: needs_auth naming the scope, then a sign-in for the union; asked once per scope', async () => {
    const { as, mcp } = await servers(
      { scopes: ['mcp:tools', 'mcp:admin', 'mcp:root'], withheldScopes: ['mcp:root'] },
      { scopes: ['mcp:tools'], toolScopes: { echo: ['mcp:admin'], request_headers: ['mcp:root'] } },
    );
    const g = await gateway({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    await waitForState(g, 'secured', 'needs_auth');
    const first = await startSignIn(g);
    expect(first.searchParams.get('scope')).toBe('mcp:tools');
    expect((await finishSignIn(g, first)).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await call(g, 'whoami'))).toContain(as.accountId);

    // echo needs mcp:admin: the call fails naming the sign-in, the server waits for it.
    const refused = JSON.stringify(await call(g, 'echo', { text: 'hi' }));
    expect(refused).toContain('SERVER_UNAVAILABLE');
    expect(refused).toContain('secured needs sign-in');
    const waiting = await waitForState(g, 'secured', 'needs_auth');
    expect(waiting.last_error).toContain('scope "mcp:admin"');
    expect(waiting.last_error).toContain('403 insufficient_scope');
    const forbidden = mcp.counts.forbidden;
    const stepUp = await startSignIn(g);
    // What was granted, and what the server asked for (SEP-2350).
    expect(stepUp.searchParams.get('scope')?.split(' ').sort()).toEqual(['mcp:admin', 'mcp:tools']);
    const stepped = await finishSignIn(g, stepUp);
    expect(stepped.status, await stepped.clone().text()).toBe(200);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await call(g, 'echo', { text: 'hi' }))).toContain('hi');
    expect(mcp.counts.forbidden).toBe(forbidden);

    // mcp:root is a scope the authorization server never grants: one step-up, then no more.
    await waitForState(g, 'secured', 'ready');
    await call(g, 'request_headers', {});
    const third = await startSignIn(g);
    expect(third.searchParams.get('scope')?.split(' ')).toContain('mcp:root');
    expect((await finishSignIn(g, third)).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    const stopped = JSON.stringify(await call(g, 'request_headers', {}));
    expect(stopped).toContain('does not ask again');
    // Failed, not needs_auth: another sign-in is not what it lacks; nothing retries it either.
    const given = await waitForState(g, 'secured', 'failed');
    expect(given.last_error).toContain('scope "mcp:root"');
    const forbiddenNow = mcp.counts.forbidden;
    expect(JSON.stringify(await call(g, 'whoami'))).toContain('does not ask again');
    expect(mcp.counts.forbidden).toBe(forbiddenNow);
    // A person may still sign in again: the server connects, and what it allows works.
    expect((await finishSignIn(g, await startSignIn(g))).status).toBe(200);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await call(g, 'whoami'))).toContain(as.accountId);
  });

  it('refuses authorization server metadata whose issuer is not the URL it was fetched for (RFC 8414 3.3), before using any of its endpoints', async () => {
    const poisoned = await poisonedAuthorizationServer();
    closers.push(() => poisoned.close());
    const g = await gateway({ mcpServers: [{ name: 'secured', url: poisoned.mcpUrl }] });
    await waitForState(g, 'secured', 'needs_auth');
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    expect(started.status).toBe(502);
    expect(started.json.error.message).toContain('Issuer mismatch');
    expect(started.json.error.message).toContain('https://attacker.example.com');
    expect(poisoned.metadataRequests()).toBeGreaterThan(0);
    expect(poisoned.endpointRequests()).toEqual([]);
  });

  it('uses its client ID metadata document URL as client_id where the authorization server takes one (SEP-991), and serves the document', async () => {
    let g: InProcessGateway | undefined;
    const { as, mcp } = await servers(
      {
        clientMetadataDocuments: async (url) => {
          expect(url).toBe(METADATA_URL);
          return g!.request(new URL(url).pathname);
        },
      },
      {},
    );
    g = await gateway({
      oauth_client_metadata_url: METADATA_URL,
      mcpServers: [{ name: 'secured', url: mcp.url }],
    });
    const document = await (await g.request('/oauth/client-metadata.json')).json();
    expect(document).toEqual({
      client_id: METADATA_URL,
      client_name: 'codemux',
      redirect_uris: [`${g.url}/oauth/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    await waitForState(g, 'secured', 'needs_auth');
    const url = await startSignIn(g);
    expect(url.searchParams.get('client_id')).toBe(METADATA_URL);
    expect((await finishSignIn(g, url)).status).toBe(200);
    expect(as.counts.registrations).toBe(0);
    await waitForState(g, 'secured', 'ready');
    expect(JSON.stringify(await call(g, 'whoami'))).toContain(METADATA_URL);
    const standing = (await g.rest('GET', '/api/v1/auth')).json.items[0];
    expect(standing).toMatchObject({ signed_in: true, client: 'metadata_document' });
  });

  it('registers (DCR) where the authorization server does not take metadata documents; serves none without the setting', async () => {
    const { as, mcp } = await servers({}, {});
    const g = await gateway({
      oauth_client_metadata_url: METADATA_URL,
      mcpServers: [{ name: 'secured', url: mcp.url }],
    });
    await waitForState(g, 'secured', 'needs_auth');
    const url = await startSignIn(g);
    expect(url.searchParams.get('client_id')).not.toBe(METADATA_URL);
    expect(as.counts.registrations).toBe(1);
    const plain = await gateway({ mcpServers: [] });
    expect((await plain.request('/oauth/client-metadata.json')).status).toBe(404);
  });
});

/**
 * An MCP server asking for a sign-in whose authorization server's metadata names another issuer
 * (oidc-provider always names itself): the endpoints it lists are only counted, never served.
 */
async function poisonedAuthorizationServer() {
  const server = http.createServer();
  const listening = await listenOnLoopback(server, 0);
  const base = `http://127.0.0.1:${listening.port}`;
  let metadata = 0;
  const used: string[] = [];
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', base).pathname;
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify(body));
    if (path === '/mcp') {
      return json(
        401,
        { error: 'unauthorized' },
        {
          'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        },
      );
    }
    if (path === '/.well-known/oauth-protected-resource/mcp') {
      return json(200, { resource: `${base}/mcp`, authorization_servers: [`${base}/as`] });
    }
    if (path === '/.well-known/oauth-authorization-server/as') {
      metadata++;
      return json(200, {
        issuer: 'https://attacker.example.com',
        authorization_endpoint: `${base}/as/authorize`,
        token_endpoint: `${base}/as/token`,
        registration_endpoint: `${base}/as/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (path.startsWith('/as/')) used.push(path);
    return json(404, { error: 'not_found' });
  });
  return {
    mcpUrl: `${base}/mcp`,
    metadataRequests: () => metadata,
    endpointRequests: () => [...used],
    close: listening.close,
  };
}
