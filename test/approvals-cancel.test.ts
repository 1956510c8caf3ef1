/**
 * A cancelled MCP request cancels its held run (issue 33, item 10): the official SDK client's
 * own request timeout sends `notifications/cancelled`; the run's pending approval expires, a
 * later approval over REST is refused, and the upstream never sees the held call nor any call
 * the program would have made after it. Over Streamable HTTP, SSE and stdio alike, and for a
 * connection that closes. Calls are counted at the fixture upstream (its arrivals file).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, settle } from './helpers.ts';
import { countedUpstreamConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let g: RunningGateway;
let arrived: () => string[];

beforeAll(async () => {
  const upstream = countedUpstreamConfig({ tool_policy: { approval_timeout_ms: 600_000 } });
  arrived = upstream.arrived;
  const configFile = upstream.configFile;
  g = await startGateway(configFile);
  await waitUntilReady(g);
}, 60_000);

afterAll(async () => {
  await g?.stop();
});

/** Polls `read` until `done` says yes (at most 20 s); the last value read. */
const until = <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> =>
  settle(read, done, 20_000, 50);

const approvalsFor = async (marker: string): Promise<Json[]> =>
  (await g.rest('GET', '/api/v1/approvals')).json.items.filter(
    (a: Json) => a.args?.path === marker,
  );

/** The program: a held wipe, then a write that must never be sent once the run is cancelled. */
const program = (marker: string) =>
  `call_tool('mut','wipe',{path:'${marker}'}); call_tool('mut','write',{path:'${marker}'}); 'done'`;

const TRANSPORTS: Array<[string, () => Transport]> = [
  ['Streamable HTTP', () => new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`))],
  ['SSE', () => new SSEClientTransport(new URL(`${g.url}/sse`))],
  [
    'stdio',
    () =>
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'stdio', '--config', g.configFile],
        stderr: 'ignore',
      }),
  ],
];

/** Waits until the execution holding `approval` has ended (its activity record is final). */
async function runEnded(approval: Json): Promise<Json> {
  return until(
    async () => (await g.rest('GET', `/api/v1/activity/${approval.activity_id}`)).json,
    (record) => record?.status !== undefined && record.status !== 'running',
  );
}

describe.each(TRANSPORTS)('over %s', (label, transport) => {
  it("the SDK client's own request timeout cancels the held run: nothing is sent, a late approval is refused", async () => {
    const marker = `/timeout-${label}`;
    const before = arrived().length;
    const client = new Client({ name: 'impatient', version: '1' });
    await client.connect(transport());
    try {
      const call = client.callTool(
        { name: 'code_execution', arguments: { code: program(marker) } },
        undefined,
        { timeout: 2000 },
      );
      await expect(call).rejects.toThrow(/timed out/i);
      const [approval] = await until(
        () => approvalsFor(marker),
        (items) => items[0]?.status === 'expired',
      );
      expect(approval).toMatchObject({ status: 'expired', decided_by: 'cancelled' });
      const late = await g.rest('POST', `/api/v1/approvals/${approval.id}/approve`, {});
      // Expired, not decided: 410 with the reason (the call was not sent).
      expect(late.status).toBe(410);
      expect(late.json.error.code).toBe('APPROVAL_EXPIRED');
      const record = await runEnded(approval);
      expect(record.status).not.toBe('success');
      expect(arrived().slice(before)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a closed connection ends the held run', async () => {
    const marker = `/closed-${label}`;
    const before = arrived().length;
    const client = new Client({ name: 'leaving', version: '1' });
    await client.connect(transport());
    const call = client
      .callTool({ name: 'code_execution', arguments: { code: program(marker) } }, undefined, {
        timeout: 600_000,
      })
      .catch(() => undefined);
    await until(
      () => approvalsFor(marker),
      (items) => items.length > 0,
    );
    await client.close();
    await call;
    const [approval] = await until(
      () => approvalsFor(marker),
      (items) => items[0]?.status === 'expired',
    );
    expect(approval.status).toBe('expired');
    await runEnded(approval);
    expect(arrived().slice(before)).toEqual([]);
  });
});
