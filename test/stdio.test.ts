import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_EXECUTION_INPUT_SCHEMA } from '../src/mcp/index.ts';
import { BIN, SERVERS, writeConfig } from './helpers.ts';
import { SPEC_EXAMPLES } from './spec-examples.ts';

let client: Client;
let stderr = '';

beforeAll(async () => {
  const config = writeConfig({ mcpServers: [SERVERS.everything, SERVERS.memory, SERVERS.fixture] });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', '--config', config],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (stderr += d));
  client = new Client({ name: 'codemux-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client.close();
});

type Structured = {
  ok: boolean;
  value?: unknown;
  error?: { code: string; message: string };
  logs?: string[];
  tool_calls: unknown[];
  stats: { tool_calls: number };
};

async function call(args: Record<string, unknown>) {
  const result = await client.callTool({ name: 'code_execution', arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  return { result, envelope: JSON.parse(text), structured: result.structuredContent as Structured };
}

describe('the reference examples through codemux stdio', () => {
  it.each(SPEC_EXAMPLES.map((e) => [e.name, e] as const))('%s', async (_name, example) => {
    const { result, envelope, structured } = await call(example.args);
    example.check(envelope);
    expect(result.isError).toBe(!envelope.ok);
    expect(structured.ok).toBe(envelope.ok);
  });
});

describe('codemux stdio', () => {
  it('lists code_execution with the reference input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['code_execution']);
    expect(tools[0]!.inputSchema).toEqual(CODE_EXECUTION_INPUT_SCHEMA);
    expect(tools[0]!.description).toContain('call_tool(server, tool, args)');
    expect(tools[0]!.description).toContain('everything');
  });

  it('runs a program against a real upstream and returns the envelope', async () => {
    const { result, envelope, structured } = await call({
      code: "const r = call_tool('everything', 'echo', {message: input.m}); console.log('called'); r.result.content[0].text",
      input: { m: 'hi' },
    });
    expect(envelope).toEqual({ ok: true, value: 'Echo: hi', logs: ['called'] });
    expect(result.isError).toBe(false);
    expect(structured).toMatchObject({
      ok: true,
      value: 'Echo: hi',
      logs: ['called'],
      stats: { tool_calls: 1 },
    });
    expect(structured.tool_calls).toEqual([
      { server: 'everything', tool: 'echo', ok: true, duration_ms: expect.any(Number) },
    ]);
  });

  it('sets isError exactly when ok is false, keeping logs and tool_calls', async () => {
    const { result, envelope, structured } = await call({
      code: "console.log('before'); call_tool('fixture', 'echo', {}); null.x",
    });
    expect(result.isError).toBe(true);
    expect(envelope.ok).toBe(false);
    expect(envelope.error.code).toBe('RUNTIME_ERROR');
    expect(envelope.logs).toEqual(['before']);
    expect(structured.tool_calls).toHaveLength(1);
  });

  it('refuses bad arguments with the same envelope', async () => {
    const { result, envelope } = await call({ code: '1', script: 'x' });
    expect(result.isError).toBe(true);
    expect(envelope.error.code).toBe('INVALID_REQUEST');
    expect((await call({ code: '1', options: { timeout_ms: -5 } })).envelope.error.code).toBe(
      'INVALID_OPTIONS',
    );
  });

  it('uses the async dialect and memory server together', async () => {
    const { envelope } = await call({
      code: "await tools.memory.create_entities({entities: [{name: 'n1', entityType: 't', observations: ['o']}]});\nconst g = await tools.memory.read_graph({});\nreturn g.ok ? g.data.entities.map(e => e.name) : g.error;",
    });
    expect(envelope).toEqual({ ok: true, value: ['n1'] });
  });

  it('writes logs to stderr only', () => {
    expect(stderr).toContain('codemux stdio ready');
  });
});
