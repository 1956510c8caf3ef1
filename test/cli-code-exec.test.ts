import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, SERVERS, writeConfig } from './helpers.ts';
import { SPEC_EXAMPLES, toCliFlags } from './spec-examples.ts';

let config: string;

beforeAll(() => {
  config = writeConfig({ mcpServers: [SERVERS.everything, SERVERS.memory, SERVERS.fixture] });
});

const exec = (...args: string[]) => runCli(['code', 'exec', '--config', config, ...args]);

describe('the reference examples through codemux code exec', () => {
  it.each(SPEC_EXAMPLES.map((e) => [e.name, e] as const))('%s', async (_name, example) => {
    const out = await exec(...toCliFlags(example.args));
    example.check(out.json);
    expect(out.code).toBe(out.json.ok ? 0 : 1);
  });
});

describe('codemux code exec', () => {
  it('runs the quick start against server-everything', async () => {
    const out = await exec(
      '--code',
      "call_tool('everything', 'echo', {message: input.m})",
      '--input',
      '{"m": "hi"}',
    );
    expect(out.code).toBe(0);
    expect(out.json).toEqual({
      ok: true,
      value: { ok: true, result: { content: [{ type: 'text', text: 'Echo: hi' }] } },
    });
    // One JSON document, 2-space indented, naming its activity record last.
    expect(out.stdout).toBe(
      `${JSON.stringify({ ...out.json, activity_id: out.activityId }, null, 2)}\n`,
    );
    expect(out.activityId).toMatch(/^[0-9a-f]{24}$/);
  });

  it('runs the basic calculation from the reference', async () => {
    const out = await exec('--code', '({ result: input.value * 2 })', '--input', '{"value": 21}');
    expect(out).toMatchObject({ code: 0, json: { ok: true, value: { result: 42 } } });
  });

  it('runs TypeScript with --language typescript', async () => {
    const out = await exec(
      '--language',
      'typescript',
      '--code',
      'const x: number = 42; ({ result: x })',
    );
    expect(out.json).toEqual({ ok: true, value: { result: 42 } });
  });

  it('reads --file and --input-file; a .ts file is TypeScript', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-cli-'));
    fs.writeFileSync(
      path.join(dir, 'script.ts'),
      'const users: string[] = input.users;\nreturn {count: users.length};\n',
    );
    fs.writeFileSync(path.join(dir, 'params.json'), '{"users": ["octocat", "torvalds"]}');
    const out = await exec(
      '--file',
      path.join(dir, 'script.ts'),
      '--input-file',
      path.join(dir, 'params.json'),
    );
    expect(out).toMatchObject({ code: 0, json: { ok: true, value: { count: 2 } } });
  });

  it('exits 1 with the error envelope when the program throws', async () => {
    const out = await exec('--code', "throw new Error('Test error')");
    expect(out.code).toBe(1);
    expect(out.json.error).toMatchObject({ code: 'RUNTIME_ERROR', message: 'Test error' });
  });

  it('exits 1 with TIMEOUT for an infinite loop', async () => {
    const out = await exec('--code', 'while(true){}', '--timeout', '1000');
    expect(out.code).toBe(1);
    expect(out.json).toEqual({
      ok: false,
      error: { code: 'TIMEOUT', message: 'JavaScript execution timed out', stack: '' },
    });
  });

  it('applies --max-tool-calls and --allowed-servers', async () => {
    const limited = await exec(
      '--code',
      "for(var i=0;i<10;i++){call_tool('fixture','echo',{})}",
      '--max-tool-calls',
      '5',
    );
    expect(limited.json.error).toEqual({
      code: 'MAX_TOOL_CALLS_EXCEEDED',
      message: 'Exceeded maximum tool calls limit (5)',
      stack: '',
    });
    const restricted = await exec(
      '--code',
      "call_tool('memory', 'read_graph', {})",
      '--allowed-servers',
      'fixture,everything',
    );
    expect(restricted.json.value.error).toEqual({
      code: 'SERVER_NOT_ALLOWED',
      message: "Server 'memory' is not in the allowed servers list",
    });
  });

  it.each([
    [['--code', '1', '--file', 'x.js'], /exactly one of --code, --file or --script/],
    [[], /exactly one of --code, --file or --script/],
    [['--code', '1', '--input', '{bad'], /--input is not valid JSON/],
    [['--code', '1', '--timeout', 'soon'], /--timeout must be an integer/],
    [['--code', '1', '--timeout', '0'], /options.timeout_ms must be an integer from 1 to 600000/],
    [['--code', '1', '--max-tool-calls', '-1'], /options.max_tool_calls/],
    [['--code', '1', '--language', 'ruby'], /language must be/],
    [['--code', '1', '--no-such-flag'], /unknown option/],
  ])('exits 2 for invalid arguments %j', async (args, message) => {
    const out = await exec(...args);
    expect(out.code).toBe(2);
    expect(out.stdout + out.stderr).toMatch(message);
  });

  it('exits 2 naming the field of an out-of-range config value', async () => {
    const bad = writeConfig({ code_execution_pool_size: 0 });
    const out = await runCli(['code', 'exec', '--config', bad, '--code', '1']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('code_execution_pool_size');
    expect(out.stderr).toContain('from 1 to 100');
  });

  it('exits 2 for a config file that does not exist', async () => {
    const out = await runCli([
      'code',
      'exec',
      '--config',
      '/nonexistent/mcp_config.json',
      '--code',
      '1',
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('config file not found');
  });

  it('runs the documented patterns against real servers', async () => {
    // Pattern 1 shape: sequential calls with early returns inside an IIFE.
    const sequential = await exec(
      '--code',
      "(() => { const a = call_tool('everything', 'get-sum', {a: 2, b: 3}); if (!a.ok) return {error: a.error.message}; const e = call_tool('everything', 'echo', {message: 'x'}); return {sum: a.result.content[0].text, echo: e.result.content[0].text}; })()",
    );
    expect(sequential.json.value.echo).toBe('Echo: x');
    expect(sequential.json.value.sum).toContain('5');
    // Pattern 2: fallback when the primary fails.
    const fallback = await exec(
      '--code',
      "(() => { let r = call_tool('primary-db', 'query', {}); if (!r.ok) r = call_tool('fixture', 'echo', {message: 'backup'}); return r.ok ? r.result.content[0].text : 'both down'; })()",
    );
    expect(fallback.json.value).toBe('{"message":"backup"}');
    // Pattern 3: loop with aggregation over memory entities.
    const loop = await exec(
      '--code',
      "call_tool('memory','create_entities',{entities: input.ids.map(id => ({name: id, entityType: 'item', observations: []}))}); const ok = [], failed = []; for (const id of input.ids) { const r = call_tool('memory', 'open_nodes', {names: [id]}); (r.ok ? ok : failed).push(id); } ({success_count: ok.length, error_count: failed.length})",
      '--input',
      '{"ids": ["a", "b", "c"]}',
    );
    expect(loop.json.value).toEqual({ success_count: 3, error_count: 0 });
    // Pattern 4: data transformation over a tool's result.
    const transform = await exec(
      '--code',
      "(() => { const r = call_tool('memory', 'read_graph', {}); if (!r.ok) return r; const entities = r.result.structuredContent?.entities ?? JSON.parse(r.result.content[0].text).entities; const types = {}; for (const e of entities) types[e.entityType] = (types[e.entityType] ?? 0) + 1; return {total: entities.length, types}; })()",
    );
    expect(transform.json.value).toEqual({ total: 3, types: { item: 3 } });
    // Pattern 5: parallel fan-out.
    const fanout = await exec(
      '--code',
      "var rs = call_tools([1,2,3,4,5].map(function (n) { return {server: 'everything', tool: 'echo', args: {message: 'n' + n}}; }), {max_parallel: 5}); ({titles: rs.map(function (r) { return r.ok ? r.result.content[0].text : 'ERR: ' + r.error.code; })})",
    );
    expect(fanout.json.value.titles).toEqual([
      'Echo: n1',
      'Echo: n2',
      'Echo: n3',
      'Echo: n4',
      'Echo: n5',
    ]);
  });
});
