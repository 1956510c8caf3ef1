/**
 * An authorization server that says its tokens live 0 or 1 seconds must not make codemux refresh
 * in a loop: refreshes of one server are at least OAUTH_REFRESH_MIN_INTERVAL_MS (30 s) apart,
 * and a token issued already expired is used once, then the server needs a sign-in, saying why.
 * What is asserted is how many refreshes the authorization server saw, never how long anything
 * took. A real authorization server (oidc-provider), protected MCP server and `codemux serve`.
 */
import { afterEach, describe, expect, it } from 'vitest';
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
import { runCli, until, writeConfig } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

/** Calls made through the gateway while the token is stale: each could have asked for one. */
const CALLS = 20;

const stateOf = async (g: RunningGateway): Promise<Json> =>
  (await g.rest('GET', '/api/v1/servers')).json.value.servers.find(
    (s: Json) => s.name === 'secured',
  );

const whoami = async (g: RunningGateway): Promise<string> =>
  JSON.stringify(
    (
      await g.rest('POST', '/api/v1/code/exec', {
        code: "return call_tool('secured', 'whoami', {})",
      })
    ).json,
  );

describe('tokens that say they live 0 or 1 seconds', () => {
  let as: AuthorizationServer | undefined;
  let mcp: ProtectedMcpServer | undefined;
  let g: RunningGateway | undefined;

  afterEach(async () => {
    await g?.stop();
    await mcp?.close();
    await as?.close();
    g = mcp = as = undefined;
  });

  /** A gateway signed in to `secured` at an authorization server stating `expires_in`. */
  async function signedIn(expiresIn: number, reallyLives = false) {
    as = await startAuthorizationServer(
      reallyLives ? { accessTokenTtlSeconds: expiresIn } : { statedExpiresInSeconds: expiresIn },
    );
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    const configFile = writeConfig({ mcpServers: [{ name: 'secured', url: mcp.url }] });
    g = await startGateway(configFile);
    const gateway = g;
    await until(
      'needs_auth',
      async () => ((await stateOf(gateway))?.state === 'needs_auth' ? true : undefined),
      20_000,
    );
    const started = await gateway.rest('POST', '/api/v1/servers/secured/auth/login', {});
    const callback = await followAuthorization(
      started.json.authorization_url,
      `${gateway.url}/oauth/callback`,
    );
    expect((await fetch(callback)).status).toBe(200);
    return { gateway, as, mcp, configFile };
  }

  it('expires_in 1: calls keep working on the token they have, refreshed at most twice', async () => {
    const { gateway, as } = await signedIn(1);
    await until(
      'ready',
      async () => ((await stateOf(gateway))?.state === 'ready' ? true : undefined),
      20_000,
    );
    for (let i = 0; i < CALLS; i++) expect(await whoami(gateway)).toContain(as.accountId);
    // Before the floor: a refresh per call, and one scheduled at once after each (hundreds).
    expect(as.counts.token.refresh_token ?? 0).toBeLessThanOrEqual(2);
    expect((await stateOf(gateway)).state).toBe('ready');
  });

  it('tokens that really live 1 s: refreshed at most twice; a 401 meanwhile waits for the next refresh, saying so', async () => {
    const { gateway, as } = await signedIn(1, true);
    await until(
      'connected once',
      async () =>
        ['ready', 'needs_auth'].includes((await stateOf(gateway))?.state) &&
        (as.counts.token.refresh_token ?? 0) > 0
          ? true
          : undefined,
      20_000,
    );
    // Once the token has expired, a call gets a 401 that no refresh may answer yet.
    const secured = await until(
      'a 401 waiting for the next refresh',
      async () => {
        await whoami(gateway);
        const s = await stateOf(gateway);
        return s?.state === 'needs_auth' ? s : undefined;
      },
      20_000,
    );
    expect(secured.last_error).toMatch(
      /refused the access token \(401\) and the next refresh may be sent in \d+ s/,
    );
    for (let i = 0; i < CALLS; i++) await whoami(gateway);
    expect(as.counts.token.refresh_token ?? 0).toBeLessThanOrEqual(2);
  });

  it('expires_in 0: the token is used once, then needs_auth with the reason; no refresh', async () => {
    const { gateway, as, configFile } = await signedIn(0);
    const secured = await until(
      'needs_auth with the reason',
      async () => {
        const s = await stateOf(gateway);
        return s?.state === 'needs_auth' && /already expired/.test(s.last_error ?? '')
          ? s
          : undefined;
      },
      20_000,
    );
    expect(secured.last_error).toContain('expires_in: 0');
    expect(secured.last_error).toContain('sign in again');
    for (let i = 0; i < CALLS; i++) {
      expect(await whoami(gateway)).toContain('secured needs sign-in: run `codemux auth login');
    }
    expect(as.counts.token.refresh_token ?? 0).toBe(0);
    const status = await runCli(['auth', 'status', '--config', configFile, '-o', 'json']);
    expect(status.json.items[0]).toMatchObject({ signed_in: false, state: 'needs_auth' });
    expect(status.json.items[0].reason).toContain('already expired (expires_in: 0)');
  });
});
