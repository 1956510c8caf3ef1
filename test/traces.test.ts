/**
 * OpenTelemetry traces with real parts: `codemux serve` exporting over OTLP/HTTP to a receiver
 * this test runs on loopback (it decodes the exporter's JSON and keeps every span), fixture
 * upstreams on stdio and on Streamable HTTP (the HTTP one records the trace context each
 * tools/call carries), MCP clients of both SDK generations, REST approvals.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { FIXTURE_SERVER, ROOT, runCli, settle, until, writeConfig } from './helpers.ts';
import { type RunningServer, startListening } from './http-servers.ts';

// Strings that must never reach a span: the program, its input and arguments, a result, a secret.
const SOURCE_MARKER = 'source-marker-4b1d';
const ARG_MARKER = 'argument-marker-9c2e';
const INPUT_MARKER = 'input-marker-77a0';
/** What the HTTP fixture's `lookup` answers (test/fixtures/traced-http-server.mjs). */
const RESULT_MARKER = 'result-marker-e5f3';
const SECRET = 'secret-marker-0d6b';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** One exported span, its attributes and its resource's flattened. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON
type Json = any;

/** An OTLP attribute list as a plain object. */
function flat(attributes: Json[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes) {
    out[key] = value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue;
  }
  return out;
}

/** An OTLP/HTTP receiver on loopback: every span it is sent, and every body as text. */
class Receiver {
  readonly spans: ExportedSpan[] = [];
  readonly bodies: string[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      const text = raw.toString('utf8');
      this.bodies.push(text);
      const body = JSON.parse(text) as Json;
      for (const rs of body.resourceSpans ?? []) {
        const resource = flat(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            this.spans.push({
              ...s,
              attributes: flat(s.attributes),
              status: s.status ?? {},
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The spans of trace `traceId` once `count` of them arrived, in start order. */
  async trace(traceId: string, count: number): Promise<ExportedSpan[]> {
    const spans = await settle(
      async () => this.spans.filter((s) => s.traceId === traceId),
      (found) => found.length >= count,
    );
    expect(spans.length, `spans of trace ${traceId}`).toBeGreaterThanOrEqual(count);
    return spans.sort((a, b) =>
      BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1,
    );
  }

  /** The SERVER span whose attribute `key` is `value` (waits for it). */
  serverSpan(key: string, value: unknown): Promise<ExportedSpan> {
    return until(`a SERVER span with ${key}=${String(value)}`, async () =>
      this.spans.find((s) => s.kind === SERVER && s.attributes[key] === value),
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tool results
const structured = (result: any) => result.structuredContent as Record<string, any>;

/** What the HTTP fixture saw of each tools/call: the traceparent header and `_meta.traceparent`. */
async function seenByRemote(
  remote: RunningServer,
): Promise<Array<{ header: string; meta: string }>> {
  return (await fetch(remote.url.replace(/\/mcp$/, '/seen'))).json() as never;
}

const hex = (bytes: number) =>
  Array.from({ length: bytes }, (_, i) => ((i * 37 + 11) % 256).toString(16).padStart(2, '0')).join(
    '',
  );

describe('traces over OTLP/HTTP', () => {
  const receiver = new Receiver();
  let remote: RunningServer;
  let gw: RunningGateway;
  let client: Client;
  let endpoint: string;

  beforeAll(async () => {
    endpoint = await receiver.start();
    remote = await startListening(
      [path.join(ROOT, 'test', 'fixtures', 'traced-http-server.mjs')],
      'traced HTTP fixture',
      '/mcp',
    );
    gw = await startGateway(
      writeConfig({
        instance_id: 'traces-test',
        telemetry: { otlp_endpoint: endpoint },
        tool_policy: {
          rules: [{ server: 'local', tool: 'sleep', action: 'ask' }],
          approval_timeout_ms: 60_000,
        },
        mcpServers: [
          { name: 'local', command: process.execPath, args: [FIXTURE_SERVER] },
          { name: 'remote', url: remote.url, headers: { authorization: `Bearer ${SECRET}` } },
        ],
      }),
    );
    await waitUntilReady(gw);
    client = await adminClient(gw, '/mcp');
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gw?.stop();
    await remote?.stop();
    await receiver.close();
  });

  it('exports one SERVER span per tools/call, with a CLIENT span per upstream call and the type check under it', async () => {
    const code = [
      `// ${SOURCE_MARKER}`,
      `const a: string = '${ARG_MARKER}';`,
      `const one = call_tool('local', 'echo', { message: a });`,
      'const two = await tools.remote.lookup({ key: input.k });',
      `const three = call_tool('local', 'fail', { message: a });`,
      'return [one.ok, two.ok, three.ok];',
    ].join('\n');
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { code, language: 'typescript', input: { k: INPUT_MARKER } },
    });
    expect(structured(result).value).toEqual([true, true, false]);
    const executionId = structured(result).activity_id as string;

    const server = await receiver.serverSpan('codemux.execution_id', executionId);
    const spans = await receiver.trace(server.traceId, 5);
    expect(spans.filter((s) => s.kind === SERVER)).toHaveLength(1);
    expect(server.name).toBe('tools/call code_execution');
    expect(server.parentSpanId || undefined).toBeUndefined();
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'code_execution',
      'gen_ai.operation.name': 'execute_tool',
      'codemux.execution_id': executionId,
    });
    expect(server.attributes['mcp.session.id']).toEqual(expect.any(String));
    expect(server.attributes['jsonrpc.request.id']).toEqual(expect.any(String));
    expect(server.attributes['mcp.protocol.version']).toEqual(expect.any(String));
    expect(server.status.code ?? 0).not.toBe(ERROR);
    expect(gw.output()).toContain(
      `  traces                 ${endpoint}/v1/traces (OTLP/HTTP, from "telemetry.otlp_endpoint" in`,
    );
    expect(server.resource).toMatchObject({
      'service.name': 'codemux',
      'service.instance.id': 'traces-test',
    });

    const calls = spans.filter((s) => s.kind === CLIENT);
    expect(calls.map((s) => [s.name, s.attributes['codemux.server']])).toEqual([
      ['tools/call echo', 'local'],
      ['tools/call lookup', 'remote'],
      ['tools/call fail', 'local'],
    ]);
    for (const call of calls) {
      expect(call.parentSpanId).toBe(server.spanId);
      expect(call.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'codemux.execution_id': executionId,
      });
    }
    expect(calls[0]!.attributes['network.transport']).toBe('pipe');
    expect(calls[1]!.attributes['network.transport']).toBe('tcp');
    expect(calls[2]!.status.code).toBe(ERROR);
    expect(calls[2]!.attributes['error.type']).toBe('tool_error');
    expect(calls[0]!.status.code ?? 0).not.toBe(ERROR);

    const check = spans.find((s) => s.name === 'typecheck');
    expect(check?.parentSpanId).toBe(server.spanId);

    // The HTTP upstream was sent the CLIENT span's context, in the header and in _meta.
    const lookup = calls[1]!;
    const carried = `00-${lookup.traceId}-${lookup.spanId}-01`;
    expect(await seenByRemote(remote)).toContainEqual({ header: carried, meta: carried });

    // Never the program, its input, an argument, a result or a secret.
    const exported = receiver.bodies.join('\n');
    for (const marker of [SOURCE_MARKER, ARG_MARKER, INPUT_MARKER, RESULT_MARKER, SECRET])
      expect(exported).not.toContain(marker);
  });

  it("continues the caller's trace from params._meta and carries it on to the HTTP upstream", async () => {
    const traceId = hex(16);
    const parent = hex(8);
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { code: "call_tool('remote', 'lookup', {}).ok" },
      _meta: { traceparent: `00-${traceId}-${parent}-01` },
    });
    expect(structured(result).ok).toBe(true);
    const [server, call] = await receiver.trace(traceId, 2);
    expect(server).toMatchObject({ kind: SERVER, parentSpanId: parent });
    expect(call).toMatchObject({ kind: CLIENT, parentSpanId: server!.spanId });
    const carried = `00-${traceId}-${call!.spanId}-01`;
    expect(await seenByRemote(remote)).toContainEqual({ header: carried, meta: carried });
  });

  it('continues a trace from the HTTP traceparent header when _meta carries none', async () => {
    const traceId = hex(16).replace(/^../, 'ab');
    const parent = hex(8).replace(/^../, 'cd');
    // The header goes on every request of this client; only its tools/call is traced.
    const headed = new Client({ name: 'traces-header', version: '1' });
    await headed.connect(
      new LegacyHttp(new URL(`${gw.url}/mcp`), {
        requestInit: {
          headers: { 'x-api-key': gw.key, traceparent: `00-${traceId}-${parent}-01` },
        },
      }),
    );
    try {
      const result = await headed.callTool({
        name: 'code_execution',
        arguments: { code: "call_tool('local', 'echo', {}).ok" },
      });
      expect(structured(result).ok).toBe(true);
    } finally {
      await headed.close();
    }
    const [server] = await receiver.trace(traceId, 2);
    expect(server).toMatchObject({ kind: SERVER, parentSpanId: parent });
  });

  it('traces a 2026-07-28 request too, with its protocol version', async () => {
    const modern = new ModernClient(
      { name: 'traces-modern', version: '1' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': gw.key } },
      }),
    );
    const traceId = hex(16).replace(/^../, 'ef');
    try {
      const result = await modern.callTool({
        name: 'code_execution',
        arguments: { code: "call_tool('local', 'echo', {}).ok" },
        _meta: { traceparent: `00-${traceId}-${hex(8)}-01` },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await modern.close();
    }
    const [server, call] = await receiver.trace(traceId, 2);
    expect(server!.attributes['mcp.protocol.version']).toBe('2026-07-28');
    expect(call!.parentSpanId).toBe(server!.spanId);
  });

  it('names code mode’s execute span after its tool', async () => {
    const codemode = await adminClient(gw, '/mcp/codemode');
    try {
      await codemode.callTool({
        name: 'execute',
        arguments: { code: 'return await tools.local.echo({});' },
      });
    } finally {
      await codemode.close();
    }
    const span = await until('the execute span', async () =>
      receiver.spans.find((s) => s.name === 'tools/call execute'),
    );
    expect(span.attributes['gen_ai.tool.name']).toBe('execute');
  });

  it('marks a failed tools/call: tool_error for an isError answer, the JSON-RPC code for a refusal', async () => {
    const failed = await client.callTool({
      name: 'code_execution',
      arguments: { code: "throw new Error('boom')" },
    });
    expect(failed.isError).toBe(true);
    const span = await receiver.serverSpan('codemux.execution_id', structured(failed).activity_id);
    expect(span.status.code).toBe(ERROR);
    expect(span.attributes['error.type']).toBe('tool_error');

    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow();
    const refused = await until('the refused call span', async () =>
      receiver.spans.find((s) => s.name === 'tools/call' && s.attributes['error.type']),
    );
    expect(refused.attributes['error.type']).toBe('-32602');
    expect(refused.attributes['gen_ai.tool.name']).toBeUndefined();
  });

  it('makes each approval wait a span of the execution, and its log line carries the trace ids', async () => {
    const calling = client.callTool({
      name: 'code_execution',
      arguments: { code: "call_tool('local', 'sleep', {ms: 1}).ok" },
    });
    const [approval] = await settle(
      async () => (await gw.rest('GET', '/api/v1/approvals?status=pending')).json.items as Json[],
      (items) => items.length > 0,
    );
    expect((await gw.rest('POST', `/api/v1/approvals/${approval.id}/approve`)).status).toBe(200);
    expect(structured(await calling).value).toBe(true);

    const wait = await until('the approval wait span', async () =>
      receiver.spans.find((s) => s.attributes['codemux.approval_id'] === approval.id),
    );
    expect(wait).toMatchObject({ name: 'approval wait' });
    expect(wait.attributes).toMatchObject({ 'codemux.server': 'local', 'codemux.tool': 'sleep' });
    const [server] = (await receiver.trace(wait.traceId, 3)).filter((s) => s.kind === SERVER);
    expect(wait.parentSpanId).toBe(server!.spanId);

    const held = gw
      .output()
      .split('\n')
      .find((line) => line.includes(`held for approval ${approval.id}`));
    expect(JSON.parse(held!)).toMatchObject({ trace_id: wait.traceId, span_id: wait.spanId });
  });
});

describe('traces with a collector that never answers', () => {
  const held: http.ServerResponse[] = [];
  const blackhole = http.createServer((_req, res) => held.push(res));
  let gw: RunningGateway;

  beforeAll(async () => {
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as AddressInfo).port;
    gw = await startGateway(
      writeConfig({
        telemetry: { otlp_endpoint: `http://127.0.0.1:${port}` },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    blackhole.closeAllConnections();
    await new Promise((resolve) => blackhole.close(resolve));
  });

  it('answers every execution, and stops on SIGTERM counting the spans it could not deliver', async () => {
    const client = await adminClient(gw, '/mcp');
    try {
      for (let i = 0; i < 5; i++) {
        const result = await client.callTool({
          name: 'code_execution',
          arguments: { code: `${i} + 1` },
        });
        expect(structured(result).value).toBe(i + 1);
      }
      // The exporter has sent its first batch, which is never answered.
      await until('an export to reach the collector', async () =>
        held.length > 0 ? true : undefined,
      );
      // The metrics export the count of spans dropped (0 until the queue overflows or exports fail).
      const metrics = await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': gw.key } });
      expect(await metrics.text()).toMatch(/^codemux_telemetry_spans_dropped_total \d+$/m);
    } finally {
      await client.close();
    }
    expect(await gw.stop()).toBe(0);
    expect(gw.output()).toMatch(/"dropped_spans":\d+/);
  });
});

describe('telemetry config', () => {
  it('refuses a bad telemetry field, or a bad OTLP endpoint variable, with exit 2 naming it', async () => {
    const serve = (config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
      runCli(['serve', '--config', writeConfig({ ...config, listen: '127.0.0.1:1' })], {
        env: { ...process.env, ...env },
      });
    // More bad values are table-tested in src/config/traces-config.test.ts.
    const runs = await Promise.all([
      serve({ telemetry: { sample_ratio: 2 } }),
      serve({ telemetry: { otlp_endpoint: 'ftp://127.0.0.1:4318' } }),
      serve({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2]);
    expect(runs[0]!.stderr).toContain('"telemetry.sample_ratio"');
    expect(runs[1]!.stderr).toContain('"telemetry.otlp_endpoint"');
    expect(runs[2]!.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
  });
});
