/**
 * Issue 19, item 2: the output bound counts every byte. With both bounds at 8192, a program
 * returning a value near or over the bound (with logs and tool calls beside it) gets an answer
 * whose measured bytes fit, over real MCP: for code_execution the JSON of structuredContent
 * (envelope, tool_calls, stats, activity_id) and content[0].text; for execute the JSON of
 * structuredContent (result and activity_id) plus the JSON of _meta, and content[0].text. The
 * REST body (the envelope, activity_id and request_id) fits too.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from './gateway.ts';
import { SERVERS, until } from './helpers.ts';
import { type InProcessGateway, startInProcess } from './in-process.ts';

const BOUND = 8192;

// The app in process (app.request()): sizes of answers need no socket and no gateway process.
let gateway: InProcessGateway;
let mcp: Client;
let codemode: Client;

const connect = (route: string) => adminClient(gateway, route, 'output-bound-test');

beforeAll(async () => {
  gateway = await startInProcess({
    mcpServers: [SERVERS.fixture],
    code_execution_pool_size: 2,
    code_execution_max_output_bytes: BOUND,
    code_mode: { max_output_bytes: BOUND },
  });
  await until(
    'the fixture ready',
    async () => gateway.runtime.registry.status().every((s) => s.state === 'ready') || undefined,
  );
  mcp = await connect('/mcp');
  codemode = await connect('/mcp/codemode');
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await codemode?.close();
  await gateway?.stop();
});

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

type Result = Awaited<ReturnType<Client['callTool']>>;

/** What leaves, as docs/security.md measures it. */
function measured(out: Result): { structured: number; text: number } {
  const content = out.content as Array<{ type: string; text: string }>;
  return {
    structured: bytes(out.structuredContent) + (out._meta ? bytes(out._meta) : 0),
    text: Buffer.byteLength(content[0]!.text),
  };
}

/** A program with calls and logs beside a string value of `size` characters. */
const program = (size: number, calls: number, dialect: 'sync' | 'async') => {
  const call =
    dialect === 'sync' ? "call_tool('fixture', 'echo', {})" : 'await tools.fixture.echo({})';
  return `for (let i = 0; i < ${calls}; i++) ${call};
console.log('a line the program logged');
${dialect === 'sync' ? '' : 'return '}'x'.repeat(${size})`;
};

/** Sizes around the bound, where the frame and the activity_id decide whether it fits. */
const SIZES = [
  ...Array.from({ length: 24 }, (_, i) => BOUND - 300 + i * 12),
  BOUND - 20,
  BOUND,
  1_000_000,
];

describe('the output bound counts every byte', () => {
  it('code_execution: structuredContent and content[0].text fit at every size', async () => {
    const seen = new Set<string>();
    for (const size of SIZES) {
      const out = await mcp.callTool({
        name: 'code_execution',
        arguments: { code: program(size, 3, 'sync') },
      });
      const m = measured(out);
      // biome-ignore lint/suspicious/noExplicitAny: the envelope
      const structured = out.structuredContent as any;
      expect(structured.activity_id).toMatch(/^[0-9a-f]{24}$/);
      expect(m.structured, `value of ${size}: ${m.structured} bytes`).toBeLessThanOrEqual(BOUND);
      expect(m.text).toBeLessThanOrEqual(BOUND);
      expect(structured.stats.tool_calls).toBe(3);
      seen.add(structured.ok ? 'ok' : structured.error.code);
    }
    // Both sides of the bound were met: values that fit, and values refused.
    expect([...seen].sort()).toEqual(['OUTPUT_TOO_LARGE', 'ok']);
  }, 120_000);

  it('code_execution: a long trace is cut from the end to fit, stats still count every call', async () => {
    const out = await mcp.callTool({
      name: 'code_execution',
      arguments: { code: program(6000, 120, 'sync') },
    });
    // biome-ignore lint/suspicious/noExplicitAny: the envelope
    const structured = out.structuredContent as any;
    expect(structured.ok).toBe(true);
    expect(structured.value).toHaveLength(6000);
    expect(structured.stats.tool_calls).toBe(120);
    expect(structured.tool_calls.length).toBeGreaterThan(0);
    expect(structured.tool_calls.length).toBeLessThan(120);
    expect(measured(out).structured).toBeLessThanOrEqual(BOUND);
  }, 60_000);

  it('execute: structuredContent with activity_id and _meta, and content[0].text, fit at every size', async () => {
    let truncated = 0;
    for (const size of SIZES) {
      const out = await codemode.callTool({
        name: 'execute',
        arguments: { code: program(size, 3, 'async') },
      });
      const m = measured(out);
      // biome-ignore lint/suspicious/noExplicitAny: the execute result
      const structured = out.structuredContent as any;
      expect(structured.activity_id).toMatch(/^[0-9a-f]{24}$/);
      expect(m.structured, `value of ${size}: ${m.structured} bytes`).toBeLessThanOrEqual(BOUND);
      expect(m.text).toBeLessThanOrEqual(BOUND);
      if (out._meta) truncated++;
    }
    expect(truncated).toBeGreaterThan(0);
  }, 120_000);

  it('REST: the body of /api/v1/code/exec fits at every size', async () => {
    for (const size of SIZES) {
      const response = await gateway.request('/api/v1/code/exec', {
        method: 'POST',
        headers: { 'x-api-key': gateway.key, 'content-type': 'application/json' },
        body: JSON.stringify({ code: program(size, 3, 'sync') }),
      });
      const body = await response.text();
      expect(JSON.parse(body).activity_id).toMatch(/^[0-9a-f]{24}$/);
      expect(Buffer.byteLength(body), `value of ${size}`).toBeLessThanOrEqual(BOUND);
    }
  }, 120_000);
});
