import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { runCli, SERVERS, settle, writeConfig } from './helpers.ts';
import { type RunningPostgres, startPostgres } from './postgres.ts';
import { type Backend, type SessionProxy, startSessionProxy } from './session-proxy.ts';

const API_KEY = 'cluster-test-admin-key';
const INSTANCES = ['alpha', 'bravo', 'charlie'] as const;
const CLUSTER_LIMIT = 2;

let postgres: RunningPostgres;
let databaseUrl: string;
let sharedDir: string;
const gateways = new Map<string, RunningGateway>();
const configs = new Map<string, string>();
const backends: Backend[] = [];
let proxy: SessionProxy;
const clients: Client[] = [];

function configFor(instanceId: string): Record<string, unknown> {
  return {
    api_key: API_KEY,
    database_url: databaseUrl,
    instance_id: instanceId,
    // Three gateways share two cores with the rest of the suite: small worker pools.
    code_execution_pool_size: 2,
    mcpServers: [
      {
        ...SERVERS.fixture,
        env: { FIXTURE_SHARED_DIR: sharedDir },
        cluster_max_concurrent_requests: CLUSTER_LIMIT,
        queue_size: 50,
      },
    ],
  };
}

beforeAll(async () => {
  // A private server, not the run's shared one (test/shared-postgres.ts): the outage test
  // stops and restarts it, which would cut every other file's connections.
  postgres = await startPostgres();
  databaseUrl = await postgres.database('cluster');
  sharedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-cluster-calls-'));
  // One after the other: each start migrates or finds the schema migrated.
  for (const id of INSTANCES) {
    const file = writeConfig(configFor(id));
    configs.set(id, file);
    const gateway = await startGateway(file);
    gateways.set(id, gateway);
    backends.push({ instanceId: id, url: gateway.url, up: true });
  }
  proxy = await startSessionProxy(backends);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await proxy?.stop();
  await Promise.all(
    [...gateways.values()].filter((g) => g.child.signalCode === null).map((g) => g.stop()),
  );
  await postgres?.stop();
  for (const file of configs.values())
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  if (sharedDir) fs.rmSync(sharedDir, { recursive: true, force: true });
}, 60_000);

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'cluster-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
    requestInit: { headers: { 'x-api-key': API_KEY } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const ownerOf = (transport: StreamableHTTPClientTransport) =>
  transport.sessionId!.slice(0, transport.sessionId!.indexOf('.'));

async function rest(
  gateway: RunningGateway,
  method: string,
  route: string,
  body?: unknown,
  key = API_KEY,
) {
  const response = await fetch(`${gateway.url}${route}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
  return { status: response.status, json: (await response.json()) as any };
}

/** Polls until `check` holds; returns how long it took, or throws after `withinMs`. */
async function within(withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  if (!(await settle(check, (held) => held, withinMs, 20)))
    throw new Error(`not within ${withinMs} ms`);
  return Date.now() - started;
}

const peakAcrossInstances = () =>
  Math.max(
    0,
    ...fs
      .readdirSync(sharedDir)
      .filter((f) => f.startsWith('peak-'))
      .map((f) => Number(fs.readFileSync(path.join(sharedDir, f), 'utf8'))),
  );

describe('three gateways on one PostgreSQL behind a session-routing balancer', () => {
  it('serves one client session end to end on the instance its id names', async () => {
    const { client, transport } = await connect();
    const owner = ownerOf(transport);
    expect(INSTANCES).toContain(owner);
    expect(transport.sessionId).toMatch(/^[a-z]+\.[0-9a-f-]{36}$/);
    const others = () => INSTANCES.filter((id) => id !== owner).map((id) => proxy.routed.get(id));
    const before = others();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('code_execution');
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { code: 'return await call_tool("fixture", "echo", { message: "hi" });' },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('hi');
    // Every request of the session went to its owner.
    expect(others()).toEqual(before);
  });

  it('answers 404 naming the owner for a session another instance holds', async () => {
    const { transport } = await connect();
    const other = INSTANCES.find((id) => id !== ownerOf(transport))!;
    const response = await fetch(`${gateways.get(other)!.url}/mcp`, {
      method: 'POST',
      headers: {
        'x-api-key': API_KEY,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`belongs to instance "${ownerOf(transport)}"`);
  });

  it('prefixes legacy SSE session ids too, and another instance answers 404 for them', async () => {
    const alpha = gateways.get('alpha')!;
    const abort = new AbortController();
    const stream = await fetch(`${alpha.url}/sse`, {
      headers: { 'x-api-key': API_KEY },
      signal: abort.signal,
    });
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('sessionId='))
      text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const id = /sessionId=([^\s&]+)/.exec(text)![1]!;
    expect(id).toMatch(/^alpha\.[0-9a-f-]{36}$/);
    const elsewhere = await fetch(`${gateways.get('bravo')!.url}/messages?sessionId=${id}`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { error: { message: string } }).error.message).toContain(
      'belongs to instance "alpha"',
    );
  });

  it('propagates a code tool made on one instance to every instance, with list_changed', async () => {
    // Round-robin puts the next three sessions on the three instances.
    const sessions = [await connect(), await connect(), await connect()];
    expect(new Set(sessions.map((s) => ownerOf(s.transport))).size).toBe(3);
    const changed = sessions.map(
      ({ client }) =>
        new Promise<void>((resolve) =>
          client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
        ),
    );
    const alpha = gateways.get('alpha')!;
    expect((await rest(alpha, 'POST', '/api/v1/code-tools', { name: 'shout' })).status).toBe(201);
    await rest(alpha, 'PUT', '/api/v1/code-tools/shout', { code: '"HELLO"' });
    await Promise.all(changed);
    for (const { client } of sessions) {
      await within(1_000, async () =>
        (await client.listTools()).tools.some((t) => t.name === 'shout'),
      );
      expect((await client.callTool({ name: 'shout', arguments: {} })).content).toEqual([
        { type: 'text', text: 'HELLO' },
      ]);
    }
  });

  it('refuses a token on every instance within a second of its revocation', async () => {
    const created = await runCli([
      'token',
      'create',
      '--name',
      'ci',
      '--servers',
      'fixture',
      '--config',
      configs.get('alpha')!,
      '-o',
      'json',
    ]);
    expect(created.code).toBe(0);
    const token = created.json.token as string;
    const status = async (id: string) =>
      (await rest(gateways.get(id)!, 'GET', '/api/v1/servers', undefined, token)).status;
    for (const id of INSTANCES) await within(1_000, async () => (await status(id)) === 200);
    const revoked = await runCli(['token', 'revoke', 'ci', '--config', configs.get('bravo')!]);
    expect(revoked.code).toBe(0);
    for (const id of INSTANCES) await within(1_000, async () => (await status(id)) === 401);
  });

  it('bounds calls to a server across all instances with cluster_max_concurrent_requests', async () => {
    const sleepy = (gateway: RunningGateway) =>
      rest(gateway, 'POST', '/api/v1/code/exec', {
        code: 'return await call_tool("fixture", "sleep", { ms: 400 });',
      });
    const runs = await Promise.all(
      INSTANCES.flatMap((id) => [0, 1].map(() => sleepy(gateways.get(id)!))),
    );
    for (const run of runs) expect(run.json.ok).toBe(true);
    expect(peakAcrossInstances()).toBe(CLUSTER_LIMIT);
  });

  it('keeps the activity of every instance in one table, each record naming its instance', async () => {
    for (const id of INSTANCES) {
      const run = await rest(gateways.get(id)!, 'POST', '/api/v1/code/exec', {
        code: `return "from ${id}";`,
      });
      expect(run.json.ok).toBe(true);
    }
    // Written off the request path (batched): read from one instance until all three are there.
    const alpha = gateways.get('alpha')!;
    await within(10_000, async () => {
      const page = await rest(alpha, 'GET', '/api/v1/activity?kind=execution&limit=500');
      const seen = new Set(
        (page.json.items as Array<{ instance_id: string }>).map((r) => r.instance_id),
      );
      return INSTANCES.every((id) => seen.has(id));
    });
  });

  it("streams every instance's records live on each instance (the dashboard behind a balancer)", async () => {
    const alpha = gateways.get('alpha')!;
    const controller = new AbortController();
    const response = await fetch(`${alpha.url}/api/v1/activity/stream`, {
      headers: { 'x-api-key': alpha.key },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    const readUntil = async (done: (t: string) => boolean) => {
      while (!done(text)) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
    };
    try {
      await readUntil((t) => t.includes('event: ready'));
      const run = await rest(gateways.get('bravo')!, 'POST', '/api/v1/code/exec', {
        code: "call_tool('fixture', 'echo', {message: 'seen from alpha'}); 'bravo'",
      });
      const id = run.json.activity_id as string;
      await readUntil((t) => t.includes(`${id}.0001`));
      const events = text
        .split('\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => JSON.parse(l.slice(6)))
        .filter((e) => e.id === id || e.parent_id === id);
      expect(events.map((e) => [e.id, e.instance_id])).toEqual([
        [id, 'bravo'],
        [`${id}.0001`, 'bravo'],
      ]);
    } finally {
      controller.abort();
    }
  });

  it('keeps every instance serving through a database restart', async () => {
    await postgres.restart(500);
    for (const id of INSTANCES) {
      const gateway = gateways.get(id)!;
      expect(gateway.child.exitCode, gateway.output().slice(-2000)).toBeNull();
      await within(10_000, async () => {
        const run = await rest(gateway, 'POST', '/api/v1/code/exec', {
          code: 'return await call_tool("fixture", "echo", { message: "after" });',
        });
        return run.json.ok === true;
      });
    }
    const created = await runCli([
      'token',
      'create',
      '--name',
      'after-restart',
      '--servers',
      'fixture',
      '--config',
      configs.get('charlie')!,
      '-o',
      'json',
    ]);
    expect(created.code).toBe(0);
    for (const id of INSTANCES) {
      await within(5_000, async () => {
        const answer = await rest(
          gateways.get(id)!,
          'GET',
          '/api/v1/servers',
          undefined,
          created.json.token,
        );
        return answer.status === 200;
      });
    }
  });

  it('starts a new session elsewhere after the owner dies (404 first)', async () => {
    const { client, transport } = await connect();
    const owner = ownerOf(transport);
    await gateways.get(owner)!.stop();
    backends.find((b) => b.instanceId === owner)!.up = false;
    await expect(client.listTools()).rejects.toMatchObject({ code: 404 });
    const again = await connect();
    expect(ownerOf(again.transport)).not.toBe(owner);
    expect((await again.client.listTools()).tools.map((t) => t.name)).toContain('shout');
  });

  it('frees the cluster slots of an instance killed while it held them', async () => {
    const live = INSTANCES.filter((id) => backends.find((b) => b.instanceId === id)!.up);
    const [holder, other] = [gateways.get(live[0]!)!, gateways.get(live[1]!)!];
    // The holder takes every slot with calls that would outlast the test.
    const held = Array.from({ length: CLUSTER_LIMIT }, () =>
      rest(holder, 'POST', '/api/v1/code/exec', {
        code: 'return await call_tool("fixture", "sleep", { ms: 120000 });',
      }).catch(() => undefined),
    );
    await within(
      10_000,
      async () =>
        fs.readdirSync(sharedDir).filter((f) => f.startsWith('call-')).length === CLUSTER_LIMIT,
    );
    const orphans = execFileSync('ps', ['-o', 'pid=', '--ppid', String(holder.child.pid)])
      .toString()
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((pid) => pid > 0);
    holder.child.kill('SIGKILL');
    await Promise.all(held);
    backends.find((b) => b.url === holder.url)!.up = false;
    for (const pid of orphans) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
    // Without the freed slots this call would wait out its deadline (TIMEOUT).
    const run = await rest(other, 'POST', '/api/v1/code/exec', {
      code: 'return await call_tool("fixture", "echo", { message: "free" });',
      timeout_ms: 20_000,
    });
    expect(run.json.ok).toBe(true);
    expect(JSON.stringify(run.json)).toContain('free');
  }, 60_000);
});

describe('a database that cannot be reached', () => {
  const closedUrl = () => `postgres://codemux:hunter2@127.0.0.1:${postgres.port + 1}/codemux`;
  it.each([
    ['serve', ['serve'], 'file'],
    ['token list', ['token', 'list'], 'file'],
    ['code-tools list', ['code-tools', 'list'], 'file'],
    ['activity list', ['activity', 'list'], 'file'],
    ['serve with CODEMUX_DATABASE_URL', ['serve'], 'env'],
  ])('%s exits 2 naming where the URL came from', async (_name, args, from) => {
    const file = writeConfig(from === 'file' ? { database_url: closedUrl() } : {});
    try {
      const env =
        from === 'env' ? { ...process.env, CODEMUX_DATABASE_URL: closedUrl() } : process.env;
      const run = await runCli([...args, '--config', file], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(from === 'file' ? '"database_url"' : 'CODEMUX_DATABASE_URL');
      expect(run.stderr).toContain('cannot use the PostgreSQL database');
      expect(run.stderr).not.toContain('hunter2');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
