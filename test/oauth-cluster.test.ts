/**
 * Upstream OAuth across instances: two `codemux serve` on one PostgreSQL with one
 * CODEMUX_SECRET_KEY share one token set. A sign-in on one connects the other; with
 * 4-second access tokens both refresh ahead of expiry for several lifetimes, and because the
 * authorization server rotates refresh tokens (a reused one ends the whole grant), the sign-in
 * survives only if the two never refresh at once.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
import { until, writeConfig } from './helpers.ts';
import { type SharedPostgres, sharedPostgres } from './shared-postgres.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let postgres: SharedPostgres;
let as: AuthorizationServer;
let mcp: ProtectedMcpServer;
const gateways: RunningGateway[] = [];

const stateOf = async (g: RunningGateway): Promise<string> =>
  (await g.rest('GET', '/api/v1/servers')).json.value.servers[0].state;

async function waitForState(g: RunningGateway, state: string, ms = 20_000): Promise<void> {
  await until(state, async () => ((await stateOf(g)) === state ? true : undefined), ms, 50);
}

const whoami = async (g: RunningGateway): Promise<string> =>
  JSON.stringify(
    (await g.rest('POST', '/api/v1/code/exec', { code: "return call_tool('secured','whoami',{})" }))
      .json,
  );

beforeAll(async () => {
  postgres = sharedPostgres();
  as = await startAuthorizationServer({ accessTokenTtlSeconds: 4 });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
  const databaseUrl = await postgres.database('oauth_cluster');
  const env = { ...process.env, CODEMUX_SECRET_KEY: randomBytes(32).toString('hex') };
  for (const id of ['alpha', 'bravo']) {
    const file = writeConfig({});
    fs.writeFileSync(
      file,
      JSON.stringify({
        api_key: 'oauth-cluster-key',
        database_url: databaseUrl,
        instance_id: id,
        code_execution_pool_size: 2,
        // 4-second tokens need refreshes closer together than the default 30 s.
        mcpServers: [{ name: 'secured', url: mcp.url, oauth: { refresh_min_interval_ms: 1000 } }],
      }),
    );
    gateways.push(await startGateway(file, { env }));
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await mcp?.close();
  await as?.close();
  await postgres?.drop();
}, 60_000);

it('a sign-in on one instance connects the other; both refresh for several lifetimes without ever reusing a refresh token', async () => {
  const [alpha, bravo] = gateways as [RunningGateway, RunningGateway];
  await waitForState(alpha, 'needs_auth');
  await waitForState(bravo, 'needs_auth');
  const started = await alpha.rest('POST', '/api/v1/servers/secured/auth/login', {});
  expect(started.status).toBe(201);
  const callback = await followAuthorization(
    started.json.authorization_url,
    `${alpha.url}/oauth/callback`,
  );
  expect((await fetch(callback)).status).toBe(200);
  await waitForState(alpha, 'ready');
  // The other instance hears of the sign-in through the store and connects.
  await waitForState(bravo, 'ready', 10_000);
  expect(await whoami(bravo)).toContain(as.accountId);
  const status: Json = (await bravo.rest('GET', '/api/v1/auth')).json.items[0];
  expect(status).toMatchObject({ server: 'secured', signed_in: true, state: 'ready' });
  // Four lifetimes of 4 s: each instance schedules a refresh ahead of every expiry.
  const refreshed = () => as.counts.token.refresh_token ?? 0;
  const before = refreshed();
  // A call on each instance in every lifetime, until three refreshes have ended three of them.
  while (refreshed() - before < 3) {
    for (const g of gateways) expect(await whoami(g)).toContain(as.accountId);
    const seen = refreshed();
    await until('the next refresh', async () => (refreshed() > seen ? true : undefined));
  }
  for (const g of gateways) expect(await whoami(g)).toContain(as.accountId);
  const refreshes = refreshed() - before;
  expect(refreshes).toBeGreaterThanOrEqual(3);
  // Two instances refreshing the same token at once would have reused a rotated refresh token.
  expect(as.counts.tokenErrors.refresh_token ?? 0).toBe(0);
  expect(await stateOf(alpha)).toBe('ready');
  expect(await stateOf(bravo)).toBe('ready');
}, 120_000);

it('a sign-out on one instance reaches the other', async () => {
  const [alpha, bravo] = gateways as [RunningGateway, RunningGateway];
  const out = await bravo.rest('POST', '/api/v1/servers/secured/auth/logout', {});
  expect(out.json).toMatchObject({ ok: true, signed_out: true });
  await waitForState(bravo, 'needs_auth');
  await waitForState(alpha, 'needs_auth', 10_000);
  expect(await whoami(alpha)).toContain('secured needs sign-in: run `codemux auth login secured`');
});
