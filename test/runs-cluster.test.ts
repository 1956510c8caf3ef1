/**
 * Runs across instances (issue 35): two `codemux serve` on one PostgreSQL behind the round-robin
 * balancer of the cluster tests, each with its own child of the mutable server. A run started on
 * one instance yields; the same caller, on a session the balancer gave to the other instance,
 * waits on it (the final answer once approved, byte for byte the owner's) or cancels it (the
 * owner stops it; the held call is never sent); another token gets EXECUTION_NOT_FOUND.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { settle, writeConfig } from './helpers.ts';
import { ANNOTATED_TOOLS, MUTABLE } from './policy-fixtures.ts';
import { type Backend, type SessionProxy, startSessionProxy } from './session-proxy.ts';
import { type SharedPostgres, sharedPostgres } from './shared-postgres.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const API_KEY = 'runs-cluster-key';
let postgres: SharedPostgres;
let dir: string;
let arrivals: string;
const gateways = new Map<string, RunningGateway>();
let proxy: SessionProxy;
const clients: Client[] = [];
const tokens: Record<string, string> = {};

beforeAll(async () => {
  postgres = sharedPostgres();
  const databaseUrl = await postgres.database('runs_cluster');
  const backends: Backend[] = [];
  for (const id of ['alpha', 'bravo']) {
    const file = writeConfig({});
    dir ??= path.dirname(file);
    arrivals ??= path.join(dir, 'arrivals.txt');
    const toolsFile = path.join(path.dirname(file), 'tools.json');
    fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
    fs.writeFileSync(
      file,
      JSON.stringify({
        api_key: API_KEY,
        database_url: databaseUrl,
        instance_id: id,
        tool_pinning: 'off',
        code_execution_pool_size: 2,
        code_execution_yield_ms: 1000,
        // wipe is annotated destructive: held by the default policy; read goes through.
        tool_policy: { approval_timeout_ms: 60_000 },
        mcpServers: [
          {
            name: 'mut',
            command: process.execPath,
            args: [MUTABLE],
            // Both instances' children write to one file: a call sent by either shows there.
            env: { MUTABLE_TOOLS_FILE: toolsFile, MUTABLE_ARRIVALS_FILE: arrivals },
          },
        ],
      }),
    );
    const g = await startGateway(file);
    await waitUntilReady(g);
    gateways.set(id, g);
    backends.push({ instanceId: id, url: g.url, up: true });
  }
  proxy = await startSessionProxy(backends);
  for (const name of ['runner', 'other']) {
    const created = await gateways.get('alpha')!.rest('POST', '/api/v1/tokens', {
      name,
      servers: ['mut'],
    });
    tokens[name] = created.json.token ?? created.json.value?.token;
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await proxy?.stop();
  await Promise.all([...gateways.values()].map((g) => g.stop()));
  await postgres?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** An MCP session of token `name` through the balancer, on the instance it gave (`instance`). */
async function session(
  name: string,
  route = '/mcp',
): Promise<{ client: Client; instance: string }> {
  const client = new Client({ name: `runs-cluster-${name}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}${route}`), {
    requestInit: { headers: { authorization: `Bearer ${tokens[name]}` } },
  });
  await client.connect(transport);
  clients.push(client);
  const id = transport.sessionId!;
  return { client, instance: id.slice(0, id.indexOf('.')) };
}

/** Sessions of `name` until one is on each instance: [on alpha, on bravo]. */
async function sessionsOnBoth(name: string, route = '/mcp'): Promise<[Client, Client]> {
  const on = new Map<string, Client>();
  while (on.size < 2) {
    const { client, instance } = await session(name, route);
    if (!on.has(instance)) on.set(instance, client);
  }
  return [on.get('alpha')!, on.get('bravo')!];
}

const codeExecution = async (client: Client, args: Record<string, unknown>) =>
  (await client.callTool({ name: 'code_execution', arguments: args })) as CallToolResult;

const structured = (result: CallToolResult): Json => result.structuredContent;

/** The tools the upstreams of both instances received, by name. */
const arrived = (): string[] =>
  fs.existsSync(arrivals)
    ? fs
        .readFileSync(arrivals, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[0]!)
    : [];

const held = (marker: string) =>
  `console.log('wiping ${marker}'); const r = call_tool('mut','wipe',{path:'${marker}'}); r.ok ? r.result.content[0].text : r.error.code`;

describe('runs across two instances behind a round-robin balancer', () => {
  let onAlpha: Client;
  let onBravo: Client;
  beforeAll(async () => {
    [onAlpha, onBravo] = await sessionsOnBoth('runner');
  }, 60_000);

  it('waits on bravo for a run of alpha: where it stands, then its final answer once approved', async () => {
    const first = structured(await codeExecution(onAlpha, { code: held('/a') }));
    expect(first).toMatchObject({ ok: true, status: 'running', logs: ['wiping /a'] });
    const id: string = first.execution_id;
    const [awaited] = first.waiting_for;
    expect(awaited).toMatchObject({ server: 'mut', tool: 'wipe' });

    const there = structured(await codeExecution(onBravo, { execution_id: id, wait_ms: 0 }));
    expect(there).toMatchObject({ status: 'running', execution_id: id, logs: ['wiping /a'] });
    expect(there.waiting_for).toEqual(first.waiting_for);

    const waiting = codeExecution(onBravo, { execution_id: id, wait_ms: 60_000 });
    const bravo = gateways.get('bravo')!;
    const decided = await bravo.rest('POST', `/api/v1/approvals/${awaited.approval_id}/approve`);
    expect(decided.status).toBe(200);
    const final = await waiting;
    expect(final.isError).toBe(false);
    expect(structured(final)).toMatchObject({ ok: true, value: 'wipe:{"path":"/a"}' });
    // Byte for byte what the owner answers; reading it does not consume it.
    const owners = await codeExecution(onAlpha, { execution_id: id, wait_ms: 0 });
    expect(JSON.stringify(final)).toBe(JSON.stringify(owners));
    expect(arrived().filter((t) => t === 'wipe')).toHaveLength(1);
  });

  it('cancels on bravo a run of alpha: alpha stops it, the held call is never sent', async () => {
    const first = structured(await codeExecution(onAlpha, { code: held('/b') }));
    const id: string = first.execution_id;
    const cancelled = await codeExecution(onBravo, { execution_id: id, cancel: true });
    expect(cancelled.isError).toBe(true);
    expect(structured(cancelled)).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by token:runner' },
    });
    // The owner expired its approval: nothing can release the call any more.
    const alpha = gateways.get('alpha')!;
    const approvalId = first.waiting_for[0].approval_id;
    const status = await settle(
      async () => (await alpha.rest('GET', `/api/v1/approvals/${approvalId}`)).json.status,
      (s) => s === 'expired',
      20_000,
      50,
    );
    expect(status).toBe('expired');
    expect((await alpha.rest('POST', `/api/v1/approvals/${approvalId}/approve`)).status).toBe(410);
    expect(arrived().filter((t) => t === 'wipe')).toHaveLength(1);
    // The same answer on the owner; a second cancel is refused, its answer kept.
    const owners = await codeExecution(onAlpha, { execution_id: id });
    expect(JSON.stringify(owners)).toBe(JSON.stringify(cancelled));
    const again = structured(await codeExecution(onBravo, { execution_id: id, cancel: true }));
    expect(again.error).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('answers EXECUTION_NOT_FOUND on bravo to another token, for a wait and a cancel', async () => {
    const first = structured(await codeExecution(onAlpha, { code: held('/c') }));
    const id: string = first.execution_id;
    const [, otherOnBravo] = await sessionsOnBoth('other');
    for (const args of [
      { execution_id: id, wait_ms: 0 },
      { execution_id: id, cancel: true },
    ]) {
      const refused = await codeExecution(otherOnBravo, args);
      expect(refused.isError).toBe(true);
      expect(structured(refused).error.code).toBe('EXECUTION_NOT_FOUND');
    }
    // Untouched: still running, and its own caller may still end it.
    const still = structured(await codeExecution(onBravo, { execution_id: id, wait_ms: 0 }));
    expect(still.status).toBe('running');
    const ended = structured(await codeExecution(onBravo, { execution_id: id, cancel: true }));
    expect(ended.error.code).toBe('CANCELLED');
  });

  it('continues execute (code mode) on bravo in its own shape, byte for byte the owner’s', async () => {
    const [modeOnAlpha, modeOnBravo] = await sessionsOnBoth('runner', '/mcp/codemode');
    const execute = async (client: Client, args: Record<string, unknown>) =>
      (await client.callTool({ name: 'execute', arguments: args })) as CallToolResult;
    const first = structured(
      await execute(modeOnAlpha, {
        code: "console.log('x'); const r = await tools.mut.wipe({path: '/d'}); return r;",
      }),
    );
    expect(first).toMatchObject({ status: 'running', result: null });
    const id: string = first.executionId;
    const bravo = gateways.get('bravo')!;
    const [approval] = await settle(
      async () =>
        (await bravo.rest('GET', '/api/v1/approvals?status=pending')).json.items.filter(
          (a: Json) => a.args?.path === '/d',
        ),
      (items: Json[]) => items.length > 0,
      20_000,
      50,
    );
    await bravo.rest('POST', `/api/v1/approvals/${approval.id}/deny`);
    const there = await execute(modeOnBravo, { execution_id: id, timeout_ms: 60_000 });
    expect(structured(there)).toMatchObject({ status: 'completed' });
    const here = await execute(modeOnAlpha, { execution_id: id, timeout_ms: 0 });
    expect(JSON.stringify(there)).toBe(JSON.stringify(here));
  });
});
