/**
 * The refresh against a real HTTP token endpoint and a real SQLite store: which answers end a
 * sign-in (the grant is gone) and which are retried (the tokens stay), that the refresh token
 * goes only to its issuer, and that an error page echoing the request never reaches a message.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OAUTH_REFRESH_MIN_INTERVAL_MS } from '../../config/defaults.ts';
import type { ServerConfig } from '../../config/index.ts';
import { openStore, type Store } from '../../store/index.ts';
import { SecretBox } from '../../util/secret-box.ts';
import { RefreshPacer } from './refresh-pacer.ts';
import { refreshTokens } from './refresher.ts';
import { OAuthVault } from './vault.ts';

const REFRESH = 'rt-secret-0123456789';
let answer: { status: number; body: string; type?: string } = { status: 200, body: '{}' };
let requests = 0;
let server: http.Server;
let issuer: string;
let dir: string;
let store: Store;
let vault: OAuthVault;

const mcp: ServerConfig = {
  name: 'gh',
  protocol: 'http',
  url: 'https://mcp.example.com/mcp',
  args: [],
  env: {},
  cwd: '/',
  headers: {},
  enabled: true,
  quarantined: false,
  disabledTools: [],
  queueSize: 0,
  connectTimeoutMs: 1000,
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-refresh-'));
  store = openStore(dir);
  const box = new SecretBox(randomBytes(32));
  vault = new OAuthVault(store.oauth, () => box);
});

afterAll(async () => {
  await store.close();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Signed in with an access token that expired a second ago. */
beforeEach(async () => {
  await store.oauth.delete('gh');
  await vault.saveTokens('gh', mcp.url!, {
    tokens: {
      access_token: 'at-old',
      token_type: 'Bearer',
      refresh_token: REFRESH,
      expires_in: -1,
      issuer,
    },
    discovery: {
      authorizationServerUrl: issuer,
      authorizationServerMetadata: {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
      },
    },
    client: { client_id: 'registered-client' },
  });
});

const refresh = () => refreshTokens(mcp, vault, { leadMs: 1000 });
const stillSignedIn = async () => 'tokens' in (await vault.tokens('gh', mcp.url!));

describe('refreshTokens', () => {
  it('saves the new tokens, keeping the refresh token the server did not rotate', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ access_token: 'at-new', token_type: 'Bearer', expires_in: 3600 }),
    };
    const outcome = await refresh();
    expect(outcome).toMatchObject({
      ok: true,
      tokens: { access_token: 'at-new', refresh_token: REFRESH },
    });
    const stored = await vault.tokens('gh', mcp.url!);
    expect('tokens' in stored && stored.tokens.access_token).toBe('at-new');
  });

  it.each([
    ['a 503 temporarily_unavailable', 503, 'temporarily_unavailable'],
    ['a 429', 429, 'too_many_requests'],
    ['a 400 invalid_request', 400, 'invalid_request'],
  ])('retries after %s: the tokens stay', async (_what, status, error) => {
    answer = { status, body: JSON.stringify({ error }) };
    const outcome = await refresh();
    expect(outcome).toMatchObject({ ok: false, permanent: false });
    expect(await stillSignedIn()).toBe(true);
  });

  it.each(['invalid_grant', 'invalid_client', 'unauthorized_client'])(
    'ends the sign-in on %s, with the reason',
    async (error) => {
      answer = { status: 400, body: JSON.stringify({ error, error_description: 'revoked' }) };
      const outcome = await refresh();
      expect(outcome).toMatchObject({ ok: false, permanent: true });
      expect(!outcome.ok && outcome.reason).toContain(`refused the refresh (${error}: revoked)`);
      expect(await stillSignedIn()).toBe(false);
      expect((await vault.row('gh'))?.reason).toContain(error);
    },
  );

  it('never puts a raw error body in its reason (it may echo the refresh token)', async () => {
    answer = {
      status: 502,
      body: `<html>bad gateway for refresh_token=${REFRESH}</html>`,
      type: 'text/html',
    };
    const outcome = await refresh();
    expect(outcome.ok).toBe(false);
    expect(JSON.stringify(outcome)).not.toContain(REFRESH);
    expect(await stillSignedIn()).toBe(true);
  });

  it('gives up on an answer larger than 1 MiB', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ access_token: 'x'.repeat(2_000_000), token_type: 'Bearer' }),
    };
    const outcome = await refresh();
    expect(outcome).toMatchObject({ ok: false, permanent: false });
    expect(!outcome.ok && outcome.reason).toContain('larger than 1048576 bytes');
  });

  it('sends a refresh token only to the authorization server that issued it', async () => {
    const before = requests;
    await store.oauth.put('gh', {
      discovery: { authorizationServerUrl: 'https://elsewhere.example.com' },
    });
    vault.invalidate('gh');
    const outcome = await refresh();
    expect(outcome).toMatchObject({ ok: false, permanent: true });
    expect(!outcome.ok && outcome.reason).toContain('not by https://elsewhere.example.com');
    expect(requests).toBe(before);
  });

  it('leaves a token that is not due alone (another instance refreshed it)', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ access_token: 'at-2', token_type: 'Bearer', expires_in: 3600 }),
    };
    await refresh();
    const before = requests;
    const outcome = await refresh();
    expect(outcome).toMatchObject({ ok: true, tokens: { access_token: 'at-2' } });
    expect(requests).toBe(before);
  });
});

describe('refreshTokens with a pacer', () => {
  it('after a failed refresh sends nothing until twice the interval, however often it is asked', async () => {
    const pacer = new RefreshPacer();
    const paced = () => refreshTokens(mcp, vault, { leadMs: 1000, pacer });
    answer = { status: 503, body: JSON.stringify({ error: 'temporarily_unavailable' }) };
    const before = requests;
    const failed = await paced();
    expect(failed).toMatchObject({ ok: false, permanent: false });
    expect(requests).toBe(before + 1);
    // Backed off: more than one interval from now (two from when it was sent).
    expect(!failed.ok && failed.retryAt).toBeGreaterThan(
      Date.now() + OAUTH_REFRESH_MIN_INTERVAL_MS,
    );
    answer = {
      status: 200,
      body: JSON.stringify({ access_token: 'at-new', token_type: 'Bearer', expires_in: 0 }),
    };
    for (let i = 0; i < 50; i++) {
      const outcome = await paced();
      expect(outcome).toMatchObject({ ok: false, permanent: false, paced: true });
      expect(!outcome.ok && outcome.reason).toContain('at least 30 s apart');
    }
    expect(requests).toBe(before + 1);
    expect(await stillSignedIn()).toBe(true);
  });

  it('after a refresh that worked sends the next one no sooner than the interval', async () => {
    const pacer = new RefreshPacer();
    const paced = () => refreshTokens(mcp, vault, { leadMs: 1000, pacer });
    // A token that says it is already expired: due again at once, and still not asked for.
    answer = {
      status: 200,
      body: JSON.stringify({ access_token: 'at-zero', token_type: 'Bearer', expires_in: 0 }),
    };
    const before = requests;
    expect(await paced()).toMatchObject({ ok: true, tokens: { access_token: 'at-zero' } });
    for (let i = 0; i < 50; i++) expect(await paced()).toMatchObject({ ok: false, paced: true });
    expect(requests).toBe(before + 1);
  });
});
