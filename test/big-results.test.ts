/**
 * Issue 19, item 1: big upstream results stay inside the sandbox. A program reads a 2 MB and
 * an 8 MB result through call_tool, call_tools and tools.* (code_execution_max_result_bytes,
 * 16 MiB by default) while code_execution_max_output_bytes bounds only what leaves; a result
 * over a (hot-reloaded) small bound gets the exact message; execute on /mcp/codemode keeps
 * Arion's per-call bound (code_mode.max_output_bytes).
 */
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { SERVERS, until, writeConfig } from './helpers.ts';

const MB = 1_000_000;
const CODE_MODE_MAX_OUTPUT_BYTES = 8192;
/** JSON of the fixture's `big` result beyond its text: `{"content":[{"type":"text","text":""}]}`. */
const RESULT_FRAME_BYTES = JSON.stringify({ content: [{ type: 'text', text: '' }] }).length;

let gateway: RunningGateway;
let codemode: Client;

beforeAll(async () => {
  gateway = await startGateway(
    writeConfig({
      mcpServers: [SERVERS.fixture],
      code_execution_pool_size: 2,
      code_mode: { max_output_bytes: CODE_MODE_MAX_OUTPUT_BYTES },
    }),
  );
  await waitUntilReady(gateway);
  codemode = new Client({ name: 'big-results-test', version: '1.0.0' });
  await codemode.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/codemode`), {
      requestInit: { headers: { 'x-api-key': gateway.key } },
    }),
  );
}, 60_000);

afterAll(async () => {
  await codemode?.close();
  await gateway?.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: guest values
async function exec(code: string): Promise<any> {
  const { status, json } = await gateway.rest('POST', '/api/v1/code/exec', { code });
  expect(status, JSON.stringify(json).slice(0, 2000)).toBe(200);
  expect(json.ok, JSON.stringify(json).slice(0, 2000)).toBe(true);
  return json.value;
}

const big = (bytes: number) => `{ bytes: ${bytes} }`;

/** The three ways a code_execution program reads a result; each returns what it read. */
const DIALECTS = {
  call_tool: (bytes: number) =>
    `const r = call_tool('fixture', 'big', ${big(bytes)});
r.ok ? r.result.content[0].text.length : r.error`,
  call_tools: (bytes: number) =>
    `const [r] = call_tools([{ server: 'fixture', tool: 'big', args: ${big(bytes)} }]);
r.ok ? r.result.content[0].text.length : r.error`,
  'tools.*': (bytes: number) =>
    `const r = await tools.fixture.big(${big(bytes)});
r.ok ? r.data.length : r.error`,
} as const;

describe('big results stay inside the sandbox', () => {
  for (const [dialect, program] of Object.entries(DIALECTS)) {
    for (const bytes of [2 * MB, 8 * MB]) {
      it(`reads a ${bytes / MB} MB result through ${dialect} and returns its length`, async () => {
        expect(await exec(program(bytes))).toBe(bytes);
      }, 60_000);
    }
  }

  it('reads a result of exactly code_execution_max_result_bytes (16 MiB) within the default 128 MB', async () => {
    const bytes = 16 * 1_048_576 - RESULT_FRAME_BYTES;
    expect(await exec(DIALECTS.call_tool(bytes))).toBe(bytes);
    const over = await exec(DIALECTS.call_tool(bytes + 1));
    expect(over).toEqual({
      code: 'UPSTREAM_ERROR',
      message: 'fixture.big: result too large (16777217 bytes, at most 16777216)',
    });
  }, 60_000);

  it('reads two 8 MB results of one call_tools batch', async () => {
    const value = await exec(`call_tools([
  { server: 'fixture', tool: 'big', args: ${big(8 * MB)} },
  { server: 'fixture', tool: 'big', args: { bytes: ${8 * MB}, structured: true } },
]).map((r) => r.ok ? JSON.stringify(r.result).length : r.error)`);
    expect(value).toEqual([8 * MB + RESULT_FRAME_BYTES, expect.any(Number)]);
    expect(value[1]).toBeGreaterThan(8 * MB);
  }, 60_000);

  it('the history keeps the answer of a 2 MB call cut to 8 KiB', async () => {
    const { json } = await gateway.rest('POST', '/api/v1/code/exec', {
      code: DIALECTS.call_tool(2 * MB),
    });
    // The history is written in the background: wait for the record.
    const record: { status: number; json: { children?: Array<{ response: unknown }> } } =
      await until('the history record', async () => {
        const got = await gateway.rest('GET', `/api/v1/activity/${json.activity_id}`);
        return got.status === 200 && got.json.children?.length === 1 ? got : undefined;
      });
    const response = record.json.children![0]!.response;
    expect(typeof response).toBe('string');
    expect(response).toMatch(/…\[cut: \d+ bytes of JSON, first 8192 kept\]$/);
    expect(Buffer.byteLength(response as string)).toBeLessThan(8192 + 100);
  }, 60_000);

  it('execute on /mcp/codemode still bounds each call by code_mode.max_output_bytes', async () => {
    const out = await codemode.callTool({
      name: 'execute',
      arguments: {
        code: `const r = await tools.fixture.big(${big(10_000)}); return r.ok ? r.data.length : r.error;`,
      },
    });
    // biome-ignore lint/suspicious/noExplicitAny: the execute result
    const structured = out.structuredContent as any;
    expect(structured.status).toBe('completed');
    expect(structured.result).toEqual({
      code: 'result_too_large',
      message: `fixture.big: result too large (${10_000 + RESULT_FRAME_BYTES} bytes, at most ${CODE_MODE_MAX_OUTPUT_BYTES})`,
      retryable: false,
    });
    // The same call from code_execution is well within code_execution_max_result_bytes.
    expect(await exec(DIALECTS['tools.*'](10_000))).toBe(10_000);
  }, 60_000);

  it('a result over a reloaded code_execution_max_result_bytes gets the exact message in every dialect', async () => {
    const raw = JSON.parse(fs.readFileSync(gateway.configFile, 'utf8'));
    fs.writeFileSync(
      gateway.configFile,
      JSON.stringify({ ...raw, code_execution_max_result_bytes: 4096 }, null, 2),
    );
    const bytes = 5000 + RESULT_FRAME_BYTES;
    const message = `fixture.big: result too large (${bytes} bytes, at most 4096)`;
    // The watcher applies the change within moments; wait for it without timing it.
    await until('the new bound applied', async () =>
      (await exec(DIALECTS.call_tool(5000))) !== 5000 ? true : undefined,
    );
    expect(await exec(DIALECTS.call_tool(5000))).toEqual({ code: 'UPSTREAM_ERROR', message });
    expect(await exec(DIALECTS.call_tools(5000))).toEqual({ code: 'UPSTREAM_ERROR', message });
    expect(await exec(DIALECTS['tools.*'](5000))).toEqual({
      code: 'result_too_large',
      message,
      retryable: false,
    });
    // Below the bound still reads.
    expect(await exec(DIALECTS.call_tool(1000))).toBe(1000);
  }, 60_000);

  it('a sandbox too small for a big result says so: MEMORY_LIMIT_EXCEEDED naming the result', async () => {
    const raw = JSON.parse(fs.readFileSync(gateway.configFile, 'utf8'));
    fs.writeFileSync(
      gateway.configFile,
      JSON.stringify(
        {
          ...raw,
          code_execution_max_result_bytes: 16 * 1_048_576,
          code_execution_memory_limit_mb: 32,
        },
        null,
        2,
      ),
    );
    const error: { code: string; message: string } = await until(
      'the new memory limit applied',
      async () => {
        const { json } = await gateway.rest('POST', '/api/v1/code/exec', {
          code: DIALECTS.call_tool(16 * MB),
        });
        return json.ok ? undefined : json.error;
      },
      60_000,
    );
    expect(error.code).toBe('MEMORY_LIMIT_EXCEEDED');
    expect(error.message).toBe(
      'The program exceeded the sandbox memory limit (32 MB); it had received a tool result of 15.3 MB of JSON, which the sandbox holds as text and again decoded (raise the memory limit, or ask the tool for less)',
    );
    // A result the sandbox can hold still reads.
    expect(await exec(DIALECTS.call_tool(2 * MB))).toBe(2 * MB);
  }, 60_000);
});
