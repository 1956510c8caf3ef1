/**
 * Runs that outlive their request (issue 35), over MCP with the official SDK client at its
 * defaults (its 60 s request timeout): a program held on an approval yields with `running`
 * and its approval; the agent waits on it by execution_id; the approval releases the call and
 * the wait returns the answer a run that never yielded gives. Cancel before the approval: the
 * call is never sent. The same with `execute` on /mcp/codemode and with a code tool; a waiting
 * request that carries a progressToken hears where the run stands; after the yield, the
 * request's connection closing changes nothing. The gateway yields after 1 s here (the default
 * is 30 s). Calls are counted at the upstream (its arrivals file).
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { settle } from './helpers.ts';
import { countedUpstreamConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let g: RunningGateway;
let arrived: () => string[];
const clients: Client[] = [];

beforeAll(async () => {
  const upstream = countedUpstreamConfig({
    code_execution_yield_ms: 1000,
    tool_policy: { approval_timeout_ms: 600_000 },
  });
  arrived = upstream.arrived;
  const configFile = upstream.configFile;
  g = await startGateway(configFile);
  await waitUntilReady(g);
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await g?.stop();
});

/** A connected SDK client (1.x, Streamable HTTP) on `route`, closed after the file. */
async function connect(route = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${g.url}${route}`)));
  clients.push(client);
  return client;
}

/** A held wipe of `marker`, then its value. */
const program = (marker: string) =>
  `console.log('wiping ${marker}'); const r = call_tool('mut', 'wipe', {path: '${marker}'}); r.ok ? 'wiped' : r.error.code`;

const first = (result: Json) => JSON.parse(result.content[0].text);

/** Continues `id` on `client` until its running answer names an approval (the yield may come first). */
async function heldOn(client: Client, tool: string, id: string, wait: string): Promise<Json> {
  return settle(
    async () =>
      first(await client.callTool({ name: tool, arguments: { execution_id: id, [wait]: 0 } })),
    (answer) => (answer.waiting_for ?? []).length > 0 || answer.status !== 'running',
  );
}

describe('a run that outlives its request', () => {
  it('yields naming its approval; a wait returns the final answer once approved', async () => {
    const client = await connect();
    const marker = '/story';
    const before = arrived().length;
    const yielded = await client.callTool({
      name: 'code_execution',
      arguments: { code: program(marker) },
    });
    expect(yielded.isError).toBe(false);
    const running = first(yielded);
    expect(running).toMatchObject({
      ok: true,
      status: 'running',
      execution_id: expect.any(String),
    });
    expect(yielded.structuredContent).toEqual(running);
    expect((yielded.content as Json[])[1].text).toContain(
      `{"execution_id": "${running.execution_id}"}`,
    );
    const held = await heldOn(client, 'code_execution', running.execution_id, 'wait_ms');
    expect(held.waiting_for).toEqual([
      { approval_id: expect.any(String), server: 'mut', tool: 'wipe' },
    ]);
    expect(held.logs).toEqual([`wiping ${marker}`]);
    expect(arrived().slice(before)).toEqual([]);
    const waiting = client.callTool({
      name: 'code_execution',
      arguments: { execution_id: running.execution_id, wait_ms: 60_000 },
    });
    const approved = await g.rest(
      'POST',
      `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`,
      {},
    );
    expect(approved.status).toBe(200);
    const final = (await waiting) as Json;
    // What a run that never yielded answers: the envelope as the text, the record's id.
    expect(final.isError).toBe(false);
    expect(final.content).toEqual([
      {
        type: 'text',
        text: JSON.stringify({ ok: true, value: 'wiped', logs: [`wiping ${marker}`] }),
      },
    ]);
    expect(final.structuredContent).toMatchObject({
      ok: true,
      value: 'wiped',
      activity_id: running.execution_id,
      tool_calls: [expect.objectContaining({ server: 'mut', tool: 'wipe', ok: true })],
    });
    expect(arrived().slice(before)).toEqual(['wipe']);
    // Kept: reading it again answers the same.
    const again = await client.callTool({
      name: 'code_execution',
      arguments: { execution_id: running.execution_id },
    });
    expect(again.content).toEqual(final.content);
  });

  it('a cancel before the approval: CANCELLED, the approval expires, the call is never sent', async () => {
    const client = await connect();
    const marker = '/cancelled';
    const before = arrived().length;
    const running = first(
      await client.callTool({ name: 'code_execution', arguments: { code: program(marker) } }),
    );
    const held = await heldOn(client, 'code_execution', running.execution_id, 'wait_ms');
    const cancelled = (await client.callTool({
      name: 'code_execution',
      arguments: { execution_id: running.execution_id, cancel: true },
    })) as Json;
    expect(cancelled.isError).toBe(true);
    expect(first(cancelled)).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'cancelled by admin' },
    });
    const approval = await settle(
      async () =>
        (await g.rest('GET', `/api/v1/approvals/${held.waiting_for[0].approval_id}`)).json,
      (a: Json) => (a.approval ?? a).status === 'expired',
    );
    expect((approval.approval ?? approval).status).toBe('expired');
    const late = await g.rest(
      'POST',
      `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`,
      {},
    );
    expect([409, 410]).toContain(late.status);
    expect(arrived().slice(before)).toEqual([]);
  });

  it('after the yield, the request going away changes nothing', async () => {
    const client = await connect();
    const marker = '/closed-after-yield';
    const before = arrived().length;
    const running = first(
      await client.callTool({ name: 'code_execution', arguments: { code: program(marker) } }),
    );
    const held = await heldOn(client, 'code_execution', running.execution_id, 'wait_ms');
    await client.close();
    const other = await connect();
    const still = await heldOn(other, 'code_execution', running.execution_id, 'wait_ms');
    expect(still.waiting_for).toEqual(held.waiting_for);
    await g.rest('POST', `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`, {});
    const final = await other.callTool({
      name: 'code_execution',
      arguments: { execution_id: running.execution_id, wait_ms: 60_000 },
    });
    expect(first(final)).toMatchObject({ ok: true, value: 'wiped' });
    expect(arrived().slice(before)).toEqual(['wipe']);
  });

  it('a waiting request with a progressToken hears the approval it waits for', async () => {
    const client = await connect();
    const marker = '/progress';
    const running = first(
      await client.callTool({ name: 'code_execution', arguments: { code: program(marker) } }),
    );
    const held = await heldOn(client, 'code_execution', running.execution_id, 'wait_ms');
    const heard: string[] = [];
    const waiting = client.callTool(
      {
        name: 'code_execution',
        arguments: { execution_id: running.execution_id, wait_ms: 60_000 },
      },
      undefined,
      { onprogress: (p) => heard.push(p.message ?? ''), resetTimeoutOnProgress: true },
    );
    await settle(
      async () => heard.length,
      (n) => n > 0,
    );
    expect(heard[0]).toContain(
      `waiting for approval ${held.waiting_for[0].approval_id} of mut.wipe`,
    );
    await g.rest('POST', `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`, {});
    expect(first(await waiting)).toMatchObject({ ok: true, value: 'wiped' });
  });

  it('bad continues name the field and change nothing', async () => {
    const client = await connect();
    const answer = async (args: Json) =>
      (await client.callTool({ name: 'code_execution', arguments: args })) as Json;
    const unknown = await answer({ execution_id: 'no-such-run' });
    expect(unknown.isError).toBe(true);
    expect(first(unknown).error.code).toBe('EXECUTION_NOT_FOUND');
    const mixed = await answer({ execution_id: 'x', code: '1' });
    expect(first(mixed).error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(first(mixed).error.message).toContain('without code');
    const wait = await answer({ execution_id: 'x', wait_ms: -1 });
    expect(first(wait).error.message).toContain('wait_ms must be an integer from 0 to 600000');
  });

  it('execute on /mcp/codemode yields in its own shape and continues', async () => {
    const client = await connect('/mcp/codemode');
    const marker = '/codemode';
    const before = arrived().length;
    const yielded = (await client.callTool({
      name: 'execute',
      arguments: {
        code: `console.log('go'); const r = await tools.mut.wipe({path: '${marker}'}); return r.ok;`,
      },
    })) as Json;
    const running = first(yielded);
    expect(running).toMatchObject({
      status: 'running',
      result: null,
      error: null,
      diagnostics: [],
      executionId: expect.any(String),
    });
    const held = await settle(
      async () =>
        first(
          await client.callTool({
            name: 'execute',
            arguments: { execution_id: running.executionId, timeout_ms: 0 },
          }),
        ),
      (a: Json) => a.status !== 'running' || a.toolCalls !== undefined,
    );
    expect(held.status).toBe('running');
    const approvals = (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items.filter(
      (a: Json) => a.args?.path === marker,
    );
    await g.rest('POST', `/api/v1/approvals/${approvals[0].id}/approve`, {});
    const final = await client.callTool({
      name: 'execute',
      arguments: { execution_id: running.executionId, timeout_ms: 60_000 },
    });
    expect(first(final)).toMatchObject({ status: 'completed', result: true, logs: ['go'] });
    expect(arrived().slice(before)).toEqual(['wipe']);
  });

  it('a code tool yields like code_execution and is continued by its execution_id', async () => {
    const before = arrived().length;
    const created = await g.rest('POST', '/api/v1/code-tools', {
      name: 'wipe_it',
      code: `const r = call_tool('mut', 'wipe', {path: target}); r.ok ? 'wiped ' + target : r.error.code`,
      allowed_servers: ['mut'],
      params: [{ name: 'target', type: 'string', required: true }],
    });
    expect(created.status).toBe(201);
    const client = await connect();
    await settle(
      async () => (await client.listTools()).tools.map((t) => t.name),
      (names) => names.includes('wipe_it'),
    );
    const marker = '/code-tool';
    const running = first(
      await client.callTool({ name: 'wipe_it', arguments: { target: marker } }),
    );
    expect(running).toMatchObject({ ok: true, status: 'running' });
    const held = await heldOn(client, 'code_execution', running.execution_id, 'wait_ms');
    await g.rest('POST', `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`, {});
    const final = (await client.callTool({
      name: 'code_execution',
      arguments: { execution_id: running.execution_id, wait_ms: 60_000 },
    })) as Json;
    // The code tool's own answer: the string value as the text.
    expect(final.content).toEqual([{ type: 'text', text: `wiped ${marker}` }]);
    expect(arrived().slice(before)).toEqual(['wipe']);
  });

  it('a 2026-07-28 client (2.x SDK) gets the same running answer and continues', async () => {
    const client = new ModernClient(
      { name: 'modern-agent', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernHttp(new URL(`${g.url}/mcp`)));
    try {
      const marker = '/modern';
      const before = arrived().length;
      const running = first(
        await client.callTool({ name: 'code_execution', arguments: { code: program(marker) } }),
      );
      expect(running).toMatchObject({ ok: true, status: 'running' });
      const held = await settle(
        async () =>
          first(
            await client.callTool({
              name: 'code_execution',
              arguments: { execution_id: running.execution_id, wait_ms: 0 },
            }),
          ),
        (a: Json) => (a.waiting_for ?? []).length > 0,
      );
      await g.rest('POST', `/api/v1/approvals/${held.waiting_for[0].approval_id}/approve`, {});
      const final = await client.callTool({
        name: 'code_execution',
        arguments: { execution_id: running.execution_id, wait_ms: 60_000 },
      });
      expect(first(final)).toMatchObject({ ok: true, value: 'wiped' });
      expect(arrived().slice(before)).toEqual(['wipe']);
    } finally {
      await client.close();
    }
  });
});
