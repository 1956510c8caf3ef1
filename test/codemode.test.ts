import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config/index.ts';
import { RpcError } from '../src/errors/index.ts';
import { createRuntime, type ExecuteOutcome, type Runtime } from '../src/execution/index.ts';
import { EXECUTE_INPUT_SCHEMA } from '../src/mcp/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { type RunningGateway, startGateway } from './gateway.ts';
import { BIN, FIXTURE_SERVER, ROOT, runCli, SERVERS, until, writeConfig } from './helpers.ts';

let runtime: Runtime;
let small: Runtime;
/** The small runtime's fixture leaves one file here per sleep call in flight. */
const smallCalls = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-calls-'));

async function ready(rt: Runtime) {
  await rt.start();
  await until('every upstream connected or failed', async () =>
    rt.registry.status().some((s) => s.state === 'connecting' || s.state === 'idle')
      ? undefined
      : true,
  );
}

beforeAll(async () => {
  runtime = createRuntime(
    resolveConfig(
      {
        code_mode: { max_host_calls: 0, execution_timeout_ms: 0 },
        mcpServers: [
          SERVERS.fixture,
          SERVERS.everything,
          { name: 'slow', command: process.execPath, args: [FIXTURE_SERVER], call_timeout_ms: 100 },
          {
            name: 'liar',
            command: process.execPath,
            args: [path.join(ROOT, 'test', 'fixtures', 'bad-output-server.mjs')],
          },
        ],
      },
      { baseDir: ROOT },
    ),
    silentLogger(),
    { live: true, warmWorkers: 2 },
  );
  small = createRuntime(
    resolveConfig(
      {
        code_mode: {
          max_output_bytes: 2048,
          max_concurrent_executions: 1,
          memory_limit_bytes: 16 * 1_048_576,
        },
        mcpServers: [{ ...SERVERS.fixture, env: { FIXTURE_SHARED_DIR: smallCalls } }],
      },
      { baseDir: ROOT },
    ),
    silentLogger(),
    { live: true, warmWorkers: 1 },
  );
  await Promise.all([ready(runtime), ready(small)]);
}, 30_000);

afterAll(async () => {
  await Promise.all([runtime?.stop(), small?.stop()]);
  fs.rmSync(smallCalls, { recursive: true, force: true });
});

const run = (code: string, rt = runtime, timeout_ms?: number) =>
  rt.execute.execute({ code, ...(timeout_ms ? { timeout_ms } : {}) });
const result = async (code: string, rt = runtime) => {
  const out = await run(code, rt);
  expect(out.result.status, JSON.stringify(out.result.error)).toBe('completed');
  // biome-ignore lint/suspicious/noExplicitAny: script values
  return out.result.result as any;
};
const failure = async (code: string, rt = runtime, timeout_ms?: number) => {
  const out: ExecuteOutcome = await run(code, rt, timeout_ms);
  expect(out.result.status).toBe('error');
  // The error first, as Arion's; then the type check's findings, if any (warn).
  expect(out.result.diagnostics[0]).toEqual(out.result.error);
  expect(out.result.diagnostics.slice(1).every((d) => d.kind === 'TypeError')).toBe(true);
  return out.result;
};

describe('how a script runs', () => {
  it('is an async function body: await at top level, return ends the run, undefined becomes null', async () => {
    expect(
      await result('const r = await tools.fixture.echo({message: "a"});\nreturn r.data;'),
    ).toBe('{"message":"a"}');
    expect(await result('const x = 1; x')).toBeNull();
    expect(await result('return undefined')).toBeNull();
  });

  it('strips TypeScript without moving positions and refuses enums and namespaces with a ParseError', async () => {
    expect(await result('const n: number = 2;\ninterface P { x: number }\nreturn n * 2;')).toBe(4);
    const parsed = await failure('const a = 1;\nenum E { A }\nreturn a;');
    expect(parsed.error).toMatchObject({ kind: 'ParseError', line: 2 });
    expect((await failure('namespace N { export const v = 1 }')).error!.kind).toBe('ParseError');
    expect((await failure('const a = 1;\nconst b = ;')).error).toMatchObject({
      kind: 'ParseError',
      line: 2,
      column: 11,
    });
  });

  it('starts from fresh state each run', async () => {
    await result('globalThis.leak = 1; return 0');
    expect(await result('return typeof leak')).toBe('undefined');
  });

  it('offers tools, catalog and console, and nothing of the other dialect', async () => {
    expect(
      await result(
        'return [typeof tools, typeof catalog, typeof console, typeof call_tool, typeof call_tools, typeof input]',
      ),
    ).toEqual(['object', 'object', 'object', 'undefined', 'undefined', 'undefined']);
  });

  it('ends with ExecutionFailure when a promise never settles and nothing is pending', async () => {
    expect((await failure('await new Promise(() => {})')).error!.kind).toBe('ExecutionFailure');
  });

  it('reports an escaped exception as ExecutionFailure with the stack, at the line as sent', async () => {
    const out = await failure('const a = 1;\nthrow new TypeError("bad " + a);');
    expect(out.error).toMatchObject({ kind: 'ExecutionFailure', line: 2 });
    expect(out.error!.message).toMatch(
      /^TypeError: bad 1\nTypeError: bad 1\n {4}at .*execute\.ts:2:/,
    );
  });

  it('cancels calls still in flight when the script returns', async () => {
    await result('await tools.fixture.stats({reset: true}); return 0');
    // The awaited echo goes out after the sleep, so the sleep has reached the upstream when the script returns.
    await result(
      "tools.fixture.sleep({ms: 5000}); await tools.fixture.echo({}); return 'returned'",
    );
    // The cancellation reaches the upstream after the script returned: wait until it counts one.
    const cancelled = async () =>
      JSON.parse(await result('return (await tools.fixture.stats({})).data')).cancelled;
    await expect.poll(cancelled, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await cancelled()).toBe(1);
  });
});

describe('tools', () => {
  it('calls by qualified name and by property, splitting at the first dot', async () => {
    expect(
      await result(
        'return [(await tools["fixture.echo"]({})).ok, (await tools.fixture.echo({})).ok]',
      ),
    ).toEqual([true, true]);
  });

  it('cannot be enumerated or changed', async () => {
    expect((await failure('Object.keys(tools)')).error!.message).toContain(
      'cannot be enumerated or changed',
    );
    expect((await failure('tools.x = 1')).error!.message).toContain(
      'cannot be enumerated or changed',
    );
  });

  it('returns data from structuredContent, else text, counting dropped non-text blocks', async () => {
    expect(await result('return await tools.fixture.structured({})')).toEqual({
      ok: true,
      data: { n: 7 },
      meta: { omitted: 0 },
    });
    const image = await result("return await tools.everything['get-tiny-image']({})");
    expect(image.ok).toBe(true);
    expect(image.meta.omitted).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['tools.fixture.nope({})', 'tool_not_found', false],
    ['tools["nodot"]({})', 'tool_not_found', false],
    ["tools.everything['get-sum']({a: 'x', b: 1})", 'invalid_input', false],
    ['tools.fixture.echo([1])', 'invalid_input', false],
    ["tools.fixture.fail({message: 'no'})", 'upstream_error', false],
    ['tools.slow.sleep({ms: 2000})', 'upstream_timeout', true],
    ['tools.liar.count({})', 'invalid_output', false],
  ])('%s -> %s (retryable %s)', async (call, code, retryable) => {
    const envelope = await result(`return await ${call}`);
    expect(envelope).toMatchObject({ ok: false, error: { code, retryable } });
  });

  it('answers result_too_large for a result over max_output_bytes', async () => {
    const envelope = await result(
      `return await tools.fixture.echo({message: 'x'.repeat(4000)})`,
      small,
    );
    expect(envelope).toMatchObject({
      ok: false,
      error: { code: 'result_too_large', retryable: false },
    });
  });

  it('lists every tool call in submission order, never catalog or log calls', async () => {
    const out = await run(
      "console.log('x'); await catalog.namespaces.list(); await tools.fixture.echo({}); await tools.fixture.fail({}); return 1",
    );
    expect(out.result.toolCalls.map(({ tool, ok }) => ({ tool, ok }))).toEqual([
      { tool: 'fixture.echo', ok: true },
      { tool: 'fixture.fail', ok: false },
    ]);
    expect(typeof out.result.toolCalls[0]!.durationMs).toBe('number');
    expect(out.result.logs).toEqual(['x']);
  });

  it('keeps at most 8 calls in flight; the rest wait their turn', async () => {
    await result('await tools.fixture.stats({reset: true}); return 0');
    await result(
      'await Promise.all(Array.from({length: 20}, () => tools.fixture.sleep({ms: 30}))); return 0',
    );
    expect(JSON.parse(await result('return (await tools.fixture.stats({})).data')).peak).toBe(8);
  });
});

describe('limits', () => {
  it('timeout_ms lowers the wall-clock limit: TimeoutExceeded', async () => {
    expect((await failure('await tools.fixture.sleep({ms: 3000})', runtime, 100)).error!.kind).toBe(
      'TimeoutExceeded',
    );
  });

  it('counts only guest compute against the 5 s compute budget, not waits', async () => {
    expect(await result("await tools.fixture.sleep({ms: 5200}); return 'waited'")).toBe('waited');
    const spin = await failure('for (;;) {}');
    expect(spin.error).toMatchObject({
      kind: 'ResourceLimitExceeded',
      message: expect.stringContaining('compute-time budget'),
    });
  }, 20_000);

  it('ends the run after max_host_calls tool, catalog and log calls, even when the script catches', async () => {
    const out = await failure(
      "try { for (let i = 0; i < 101; i++) console.log(i); } catch (e) {} return 'caught'",
    );
    expect(out.error).toMatchObject({
      kind: 'ResourceLimitExceeded',
      message: expect.stringContaining('host-call budget'),
    });
    expect(out.logs).toHaveLength(100);
  });

  it('ends an allocation bomb with ResourceLimitExceeded naming memory', async () => {
    const out = await failure('const a = []; for (;;) a.push(new Array(100000).fill(1));', small);
    expect(out.error).toMatchObject({
      kind: 'ResourceLimitExceeded',
      message: expect.stringContaining('memory'),
    });
  });

  it('refuses a second run at once when max_concurrent_executions are active (-32600)', async () => {
    const first = run('await tools.fixture.sleep({ms: 1000}); return 1', small);
    // The first run is active for sure once its call is in flight at the upstream.
    await until(
      "the first run's call in flight",
      async () => fs.readdirSync(smallCalls).some((f) => f.startsWith('call-')) || undefined,
    );
    await expect(run('return 2', small)).rejects.toMatchObject({
      code: -32600,
      message: 'Too many Code Mode executions are active',
    });
    expect((await first).result.status).toBe('completed');
  });

  it('trims toolCalls, then logs, to fit max_output_bytes, and says how many it dropped', async () => {
    const out = await run(
      "for (let i = 0; i < 20; i++) { console.log('line ' + i + ' ' + 'x'.repeat(40)); await tools.fixture.echo({}); } return 'kept'",
      small,
    );
    expect(out.result).toMatchObject({ status: 'completed', result: 'kept' });
    expect(out.truncation!.toolCallsOmitted).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(out.result))).toBeLessThanOrEqual(2048);
    expect(out.result.toolCalls.length + out.truncation!.toolCallsOmitted).toBe(20);
    expect(out.result.logs.length + out.truncation!.logsOmitted).toBe(20);
  });

  it('reports ResourceLimitExceeded naming code_mode.max_output_bytes when the result does not fit', async () => {
    const out = await failure("return 'x'.repeat(4000)", small);
    expect(out.error).toMatchObject({
      kind: 'ResourceLimitExceeded',
      message:
        'result size limit exceeded: The result is larger than code_mode.max_output_bytes (2048 bytes); return less data',
    });
    // Within the bound alone, over it with its frame: said so, not "the result alone".
    const framed = await failure("return 'x'.repeat(2040)", small);
    expect(framed.error).toMatchObject({
      kind: 'ResourceLimitExceeded',
      message:
        'result size limit exceeded: the result with its frame (status, activity_id) is larger than code_mode.max_output_bytes (2048 bytes)',
    });
  });

  it('refuses a script over 256 KiB before any sandbox starts', async () => {
    const out = await failure(`return ${'1+'.repeat(140_000)}1`);
    expect(out.error).toMatchObject({
      kind: 'ResourceLimitExceeded',
      message: expect.stringContaining('script size'),
    });
  });

  it('rejects unknown and mistyped arguments with -32603', async () => {
    for (const args of [
      { code: '1', extra: true },
      { code: 5 },
      {},
      { code: '1', timeout_ms: 0 },
    ]) {
      await expect(runtime.execute.execute(args)).rejects.toBeInstanceOf(RpcError);
      await expect(runtime.execute.execute(args)).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(/^Json schema validation error: /),
      });
    }
  });
});

describe('the execute tool over MCP', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway(
      writeConfig({ mcpServers: [SERVERS.fixture, SERVERS.everything] }),
    );
  });
  afterAll(async () => {
    await gateway.stop();
  });

  async function check(client: Client) {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute']);
    expect(tools[0]!.inputSchema).toEqual(EXECUTE_INPUT_SCHEMA);
    const ok = await client.callTool({
      name: 'execute',
      arguments: { code: "console.log('hi'); return 6 * 7" },
    });
    expect(ok.isError).toBe(false);
    expect(ok.structuredContent).toEqual({
      status: 'completed',
      result: 42,
      error: null,
      diagnostics: [],
      logs: ['hi'],
      toolCalls: [],
      activity_id: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const bad = await client.callTool({
      name: 'execute',
      arguments: { code: 'throw new Error("x")' },
    });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as { status: string }).status).toBe('error');
    await expect(client.callTool({ name: 'code_execution', arguments: {} })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("Tool 'code_execution' not found"),
    });
    await expect(
      client.callTool({ name: 'execute', arguments: { code: '1', nope: 1 } }),
    ).rejects.toMatchObject({ code: -32603 });
  }

  it('is the only tool on /mcp/codemode', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/codemode`)));
    await check(client);
    await client.close();
  });

  it('limits an agent token to its servers in tools and catalog', async () => {
    const created = await runCli([
      'token',
      'create',
      '--name',
      'cm',
      '--servers',
      'fixture',
      '--config',
      gateway.configFile,
      '-o',
      'json',
    ]);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/codemode`), {
        requestInit: { headers: { authorization: `Bearer ${created.json.token}` } },
      }),
    );
    const out = await client.callTool({
      name: 'execute',
      arguments: {
        code: "const ns = (await catalog.namespaces.list()).data.items.map(i => i.namespace);\nconst denied = await tools.everything.echo({message: 'x'});\nreturn {ns, denied: denied.error.code, mine: (await tools.fixture.echo({})).ok};",
      },
    });
    expect((out.structuredContent as { result: unknown }).result).toEqual({
      ns: ['fixture'],
      denied: 'access_denied',
      mine: true,
    });
    await client.close();
  });

  it('is the only tool of codemux stdio --codemode', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'stdio', '--codemode', '--config', gateway.configFile],
      }),
    );
    await check(client);
    await client.close();
  });
});
