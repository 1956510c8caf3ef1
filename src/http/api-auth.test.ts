import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.ts';
import { createRuntime } from '../execution/index.ts';
import { openStore } from '../store/index.ts';
import { silentLogger } from '../util/logger.ts';
import { HttpGateway } from './gateway.ts';

const ADMIN_KEY = 'a'.repeat(43);

// Built as `codemux serve` builds it (a store, a runtime, the gateway's app), with no upstreams.
// At collection time: the route table below is read from this app.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-api-auth-'));
const config = resolveConfig({ mcpServers: {} }, { baseDir: dir });
const store = openStore(config.dataDir);
const runtime = createRuntime(config, silentLogger(), {
  warmWorkers: 0,
  codeToolStore: store.codeTools,
  activityStore: store.activity,
  toolPinStore: store.toolPins,
  approvalStore: store.approvals,
  oauth: {
    store: store.oauth,
    secretBox: () => {
      throw new Error('no sign-in in this test');
    },
  },
});
const gateway = new HttpGateway({
  runtime,
  tokens: store.tokens,
  adminKey: ADMIN_KEY,
  host: '127.0.0.1',
  port: 0,
  logger: silentLogger(),
});

afterAll(async () => {
  await gateway.stop();
  await runtime.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every route the app registers under /api/v1 (middleware too), as a method and a concrete path. */
function apiRoutes(): Array<[string, string]> {
  const seen = new Set<string>();
  for (const { method, path: pattern } of gateway.app.routes) {
    if (!pattern.startsWith('/api/v1')) continue;
    const concrete = pattern.replace(/:[^/]+/g, 'x').replace(/\*/g, 'x');
    seen.add(`${method === 'ALL' ? 'GET' : method} ${concrete}`);
  }
  return [...seen].sort().map((line) => line.split(' ') as [string, string]);
}

const ROUTES = apiRoutes();

describe('/api/v1 authentication, mounted once', () => {
  it('finds every route group of the app', () => {
    const paths = ROUTES.map(([, p]) => p);
    for (const group of [
      '/api/v1/code/exec',
      '/api/v1/code/scripts',
      '/api/v1/servers',
      '/api/v1/tools',
      '/api/v1/code-tools',
      '/api/v1/executions',
      '/api/v1/tokens',
      '/api/v1/approvals',
      '/api/v1/activity',
      '/api/v1/auth',
    ]) {
      expect(
        paths.some((p) => p.startsWith(group)),
        group,
      ).toBe(true);
    }
  });

  it.each(ROUTES)('answers %s %s with 401 without a key', async (method, route) => {
    const answer = await gateway.app.request(route, {
      method,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }),
    });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({
      ok: false,
      error: { code: 'UNAUTHORIZED' },
      request_id: expect.any(String),
    });
  });

  it('answers a wrong key with 401, and lets the admin key through', async () => {
    const wrong = await gateway.app.request('/api/v1/servers', { headers: { 'x-api-key': 'no' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({
      error: { code: 'UNAUTHORIZED', message: 'the API key or agent token is not valid' },
    });
    const right = await gateway.app.request('/api/v1/servers', {
      headers: { 'x-api-key': ADMIN_KEY },
    });
    expect(right.status).toBe(200);
  });

  it('leaves /healthz and the OAuth callback keyless', async () => {
    expect((await gateway.app.request('/healthz')).status).toBe(200);
    expect((await gateway.app.request('/oauth/callback')).status).not.toBe(401);
  });
});
