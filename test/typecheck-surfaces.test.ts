/**
 * Type-checked programs on every surface of a real `codemux serve`: MCP (`structuredContent`
 * and the text carry `diagnostics`), REST, the CLI (`--typecheck`, exit code 1 for
 * TYPE_ERROR), the config key (`code_execution_typecheck`, a bad value exits 2 naming it),
 * and execute's Arion diagnostics.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { runCli, SERVERS, writeConfig } from './helpers.ts';

let gateway: RunningGateway;
let mcp: Client;
let codemode: Client;

const connect = (route: string) => adminClient(gateway, route, 'typecheck-test');

beforeAll(async () => {
  gateway = await startGateway(
    writeConfig({
      mcpServers: [SERVERS.fixture],
      code_execution_pool_size: 2,
      code_execution_typecheck: 'error',
    }),
  );
  await waitUntilReady(gateway);
  mcp = await connect('/mcp');
  codemode = await connect('/mcp/codemode');
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await codemode?.close();
  await gateway?.stop();
});

const MISSPELLED = `const r = call_tool('fixture', 'echoo', { message: 'x' });\nr.ok;`;
const FINDING = {
  line: 1,
  column: 32,
  code: 2345,
  message: 'unknown tool "echoo" on server "fixture"; did you mean "echo"?',
};

describe('type checks on every surface', () => {
  it('MCP: the config says error, so TYPE_ERROR with the diagnostics, and nothing ran', async () => {
    const out = await mcp.callTool({
      name: 'code_execution',
      arguments: { code: MISSPELLED, language: 'typescript' },
    });
    expect(out.isError).toBe(true);
    const structured = out.structuredContent as Record<string, unknown>;
    expect(structured).toMatchObject({
      ok: false,
      error: { code: 'TYPE_ERROR', line: 1, column: 32 },
      diagnostics: [FINDING],
      tool_calls: [],
    });
    const text = JSON.parse((out.content as Array<{ text: string }>)[0]!.text);
    expect(text.diagnostics).toEqual([FINDING]);
  });

  it('MCP: options.typecheck "warn" overrides the config for one call', async () => {
    const out = await mcp.callTool({
      name: 'code_execution',
      arguments: { code: MISSPELLED, language: 'typescript', options: { typecheck: 'warn' } },
    });
    expect(out.isError).toBe(false);
    expect(out.structuredContent).toMatchObject({ ok: true, value: false, diagnostics: [FINDING] });
  });

  it("lists typecheck among code_execution's options", async () => {
    const { tools } = await mcp.listTools();
    const schema = tools.find((t) => t.name === 'code_execution')!.inputSchema as unknown as {
      properties: { options: { properties: Record<string, { enum?: string[] }> } };
    };
    expect(schema.properties.options.properties.typecheck!.enum).toEqual(['off', 'warn', 'error']);
  });

  it('REST: the same envelope, with diagnostics', async () => {
    const { status, json } = await gateway.rest('POST', '/api/v1/code/exec', {
      code: MISSPELLED,
      language: 'typescript',
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({
      ok: false,
      error: { code: 'TYPE_ERROR' },
      diagnostics: [FINDING],
    });
  });

  it('execute: a TypeError diagnostic; under "error" the status is error and nothing ran', async () => {
    const out = await codemode.callTool({
      name: 'execute',
      arguments: { code: `const r = await tools.fixture.echoo({});\nreturn r.ok;` },
    });
    expect(out.isError).toBe(true);
    const result = out.structuredContent as {
      status: string;
      error: { kind: string; code: string };
      diagnostics: Array<Record<string, unknown>>;
      toolCalls: unknown[];
    };
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ kind: 'TypeError', code: 'TYPE_ERROR', line: 1 });
    expect(result.diagnostics[0]).toEqual(result.error);
    expect(result.diagnostics[1]).toEqual({
      kind: 'TypeError',
      line: 1,
      column: 31,
      code: 2551,
      message: 'unknown tool "echoo" on server "fixture"; did you mean "echo"?',
    });
    expect(result.toolCalls).toEqual([]);
  });

  it('CLI: --typecheck through the daemon; TYPE_ERROR exits 1', async () => {
    const refused = await runCli([
      'code',
      'exec',
      '--config',
      gateway.configFile,
      '--language',
      'typescript',
      '--code',
      MISSPELLED,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
    const warned = await runCli([
      'code',
      'exec',
      '--config',
      gateway.configFile,
      '--language',
      'typescript',
      '--typecheck',
      'warn',
      '--code',
      MISSPELLED,
    ]);
    expect(warned.code).toBe(0);
    expect(warned.json).toMatchObject({ ok: true, value: false, diagnostics: [FINDING] });
    const bad = await runCli([
      'code',
      'exec',
      '--config',
      gateway.configFile,
      '--typecheck',
      'loud',
      '--code',
      '1',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.json.error).toEqual({
      code: 'INVALID_OPTIONS',
      message: 'options.typecheck must be one of "off", "warn", "error" (got "loud")',
    });
  });

  it('a bad code_execution_typecheck exits 2 naming the field', async () => {
    const file = writeConfig({ mcpServers: [], code_execution_typecheck: 'always' });
    const out = await runCli(['serve', '--config', file], { timeoutMs: 15_000 });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('code_execution_typecheck');
    expect(out.stderr).toContain('must be one of "off", "warn", "error"');
  });

  it('a code_execution_typecheck_wait_ms out of range exits 2 naming the field (issue 33, item 5)', async () => {
    const file = writeConfig({ mcpServers: [], code_execution_typecheck_wait_ms: 600_001 });
    const out = await runCli(['serve', '--config', file], { timeoutMs: 15_000 });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('code_execution_typecheck_wait_ms');
  });
});
