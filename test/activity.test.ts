import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, runCli, SERVERS, writeConfig } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: activity records as JSON
type Json = any;

let gateway: RunningGateway;
let configFile: string;

beforeAll(async () => {
  configFile = writeConfig({ mcpServers: [SERVERS.fixture, SERVERS.everything] });
  gateway = await startGateway(configFile);
  await waitUntilReady(gateway);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
});

async function connect(path: '/mcp' | '/mcp/codemode'): Promise<Client> {
  const client = new Client({ name: 'codemux-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`)));
  return client;
}

const record = async (id: string): Promise<Json> =>
  (await gateway.rest('GET', `/api/v1/activity/${id}`)).json;

const exec = async (body: Record<string, unknown>, headers?: Record<string, string>) =>
  (
    await gateway.rest(
      'POST',
      '/api/v1/code/exec',
      body,
      headers
        ? { 'x-api-key': gateway.key, 'content-type': 'application/json', ...headers }
        : undefined,
    )
  ).json;

describe('activity history', () => {
  it('records a REST execution and every call it made, in order, with the upstream error as tool_error', async () => {
    const body = await exec({
      code: "call_tool('fixture','echo',{message:'a'}); call_tool('fixture','fail',{}); call_tool('nope','x',{}); 1",
      input: { n: 1 },
    });
    expect(body.activity_id).toMatch(/^[0-9a-f]{24}$/);
    const r = await record(body.activity_id);
    expect(r).toMatchObject({
      id: body.activity_id,
      parent_id: null,
      kind: 'execution',
      surface: 'rest',
      caller: 'admin',
      language: 'javascript',
      input: { n: 1 },
      status: 'success',
      error: null,
      response: { ok: true, value: 1 },
    });
    expect(r.code).toContain("call_tool('fixture','fail'");
    expect(new Date(r.started_at).toISOString()).toBe(r.started_at);
    expect(
      r.children.map((c: Json) => [c.kind, c.server, c.tool, c.status, c.error?.code ?? null]),
    ).toEqual([
      ['tool_call', 'fixture', 'echo', 'success', null],
      ['tool_call', 'fixture', 'fail', 'tool_error', 'TOOL_ERROR'],
      ['tool_call', 'nope', 'x', 'error', 'UPSTREAM_ERROR'],
    ]);
    expect(r.children[0]).toMatchObject({ parent_id: r.id, args: { message: 'a' } });
    expect(r.children[0].response.ok).toBe(true);
  });

  it.each([
    ['error', { code: 'while (true) {}', options: { timeout_ms: 200 } }, 'TIMEOUT'],
    ['rejected', { code: '1', script: 'x' }, 'INVALID_REQUEST'],
    ['rejected', { code: '1', options: { timeout_ms: -1 } }, 'INVALID_OPTIONS'],
    ['error', { code: 'throw new Error("boom")' }, 'RUNTIME_ERROR'],
  ])('records a %s execution (%j)', async (status, request, code) => {
    const body = await exec(request);
    const r = await record(body.activity_id);
    expect(r.status).toBe(status);
    expect(r.error.code).toBe(code);
  });

  it('records a call still in flight when the execution ended as cancelled, saying why', async () => {
    // The program ends without awaiting the slow call.
    const body = await exec({
      code: 'tools.fixture.sleep({ms: 5000}); await tools.fixture.echo({}); 1',
    });
    expect(body).toMatchObject({ ok: true, value: 1 });
    const r = await record(body.activity_id);
    expect(r.children.map((c: Json) => [c.tool, c.status, c.error?.code ?? null])).toEqual([
      ['sleep', 'error', 'CANCELLED'],
      ['echo', 'success', null],
    ]);
    expect(r.children[0].error.message).toMatch(/ended before this call answered.*cancelled/);
  });

  it('records a policy refusal as blocked, on the call and nothing is sent', async () => {
    const body = await exec({
      code: "call_tool('fixture','echo',{})",
      options: { allowed_servers: ['everything'] },
    });
    const r = await record(body.activity_id);
    expect(r.children.map((c: Json) => [c.status, c.error.code])).toEqual([
      ['blocked', 'SERVER_NOT_ALLOWED'],
    ]);
  });

  it('names its record on every surface, with the surface it came from', async () => {
    const mcp = await connect('/mcp');
    const viaMcp = await mcp.callTool({ name: 'code_execution', arguments: { code: '1' } });
    const mcpId = (viaMcp.structuredContent as Json).activity_id;
    await mcp.close();

    const codemode = await connect('/mcp/codemode');
    const viaExecute = await codemode.callTool({
      name: 'execute',
      arguments: { code: 'const r = await tools.fixture.echo({message: "e"}); return r.ok;' },
    });
    const executeId = (viaExecute.structuredContent as Json).activity_id;
    await codemode.close();

    const cli = await runCli(['code', 'exec', '--config', configFile, '--code', '2']);
    expect(cli.json.value).toBe(2);

    const ui = await exec({ code: '3' }, { 'x-codemux-surface': 'ui' });

    await gateway.rest('POST', '/api/v1/code-tools', { name: 'add_one' });
    await gateway.rest('POST', '/api/v1/code-tools/add_one/params', {
      name: 'n',
      type: 'integer',
      required: true,
    });
    await gateway.rest('PUT', '/api/v1/code-tools/add_one', { code: 'n + 1' });
    const tools = await connect('/mcp');
    const viaTool = await tools.callTool({ name: 'add_one', arguments: { n: 41 } });
    expect((viaTool.content as Json)[0].text).toBe('42');
    // Every execution's result names its record: structuredContent.activity_id, as DESIGN says.
    const toolId = (viaTool.structuredContent as Json).activity_id;
    expect(viaTool.structuredContent).toEqual({ ok: true, value: 42, activity_id: toolId });
    expect((viaTool._meta as Json)['codemux/activity_id']).toBe(toolId);
    await tools.close();
    // And the REST run names it in its body.
    const viaRest = await gateway.rest('POST', '/api/v1/code-tools/add_one/run', {
      arguments: { n: 1 },
    });
    expect(viaRest.json).toMatchObject({ ok: true, value: 2 });
    expect(await record(viaRest.json.activity_id)).toMatchObject({
      surface: 'code_tool',
      tool: 'add_one',
    });

    expect((await record(mcpId)).surface).toBe('mcp');
    const execute = await record(executeId);
    expect(execute).toMatchObject({ surface: 'codemode', status: 'success' });
    expect(execute.children.map((c: Json) => c.tool)).toEqual(['echo']);
    expect((await record(cli.activityId!)).surface).toBe('cli');
    // The admin key saying ui is still REST: only the dashboard's session is ui
    // (activity-bounds.test.ts signs in for that).
    expect((await record(ui.activity_id)).surface).toBe('rest');
    expect(await record(toolId)).toMatchObject({
      surface: 'code_tool',
      tool: 'add_one',
      input: { n: 41 },
      response: { ok: true, value: 42 },
    });
  });

  it('records codemux stdio runs in the same database', async () => {
    const client = new Client({ name: 'codemux-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'stdio', '--config', configFile],
      }),
    );
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { code: "'stdio'" },
    });
    const id = (result.structuredContent as Json).activity_id;
    await client.close();
    await expect.poll(async () => (await record(id)).surface, { timeout: 10_000 }).toBe('mcp');
  });

  it('lists newest first with filters and paging, and refuses bad parameters naming them', async () => {
    const all = (await gateway.rest('GET', '/api/v1/activity?limit=500')).json;
    expect(all.limit).toBe(500);
    const ids = all.items.map((r: Json) => r.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const page = (await gateway.rest('GET', '/api/v1/activity?limit=2&offset=1')).json;
    expect(page).toMatchObject({ limit: 2, offset: 1, total: all.total });
    expect(page.items.map((r: Json) => r.id)).toEqual(ids.slice(1, 3));
    const failed = (await gateway.rest('GET', '/api/v1/activity?status=tool_error&kind=tool_call'))
      .json;
    expect(failed.total).toBeGreaterThan(0);
    expect(failed.items.every((r: Json) => r.status === 'tool_error')).toBe(true);
    const fixture = (await gateway.rest('GET', '/api/v1/activity?server=fixture')).json;
    expect(fixture.items.every((r: Json) => r.server === 'fixture')).toBe(true);
    const future = (await gateway.rest('GET', '/api/v1/activity?since=2999-01-01')).json;
    expect(future.total).toBe(0);
    const marked = await exec({ code: "call_tool('fixture','echo',{message:'Needle-42'}); 1" });
    // Case-insensitive, in the execution's code and in its call's arguments.
    const found = async () =>
      (await gateway.rest('GET', '/api/v1/activity?search=needle-42&surface=rest')).json.items.map(
        (r: Json) => [r.kind, r.kind === 'execution' ? r.id : r.parent_id],
      );
    await expect.poll(found, { timeout: 10_000 }).toEqual([
      ['tool_call', marked.activity_id],
      ['execution', marked.activity_id],
    ]);
    const echoes = (
      await gateway.rest('GET', '/api/v1/activity?tool=echo&caller=admin&until=2999-01-01')
    ).json;
    expect(echoes.total).toBeGreaterThan(0);
    expect(echoes.items.every((r: Json) => r.tool === 'echo' && r.caller === 'admin')).toBe(true);
    for (const [query, field] of [
      ['limit=501', 'limit'],
      ['status=fine', 'status'],
      ['kind=x', 'kind'],
      ['since=yesterday', 'since'],
      ['until=soon', 'until'],
      ['surface=web', 'surface'],
      [`search=${'x'.repeat(201)}`, 'search'],
    ]) {
      const { status, json } = await gateway.rest('GET', `/api/v1/activity?${query}`);
      expect(status).toBe(400);
      expect(json.error.message).toMatch(new RegExp(`^${field} `));
    }
    expect((await gateway.rest('GET', '/api/v1/activity/nope')).status).toBe(404);
  });

  it('is for the admin key only', async () => {
    const token = await runCli([
      'token',
      'create',
      '--config',
      configFile,
      '--name',
      'reader',
      '--servers',
      'fixture',
    ]);
    const secret = token.stdout.trim();
    const { status } = await gateway.rest('GET', '/api/v1/activity', undefined, {
      'x-api-key': secret,
    });
    expect(status).toBe(403);
  });

  it('streams each record as it is written (SSE)', async () => {
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/api/v1/activity/stream`, {
      headers: { 'x-api-key': gateway.key },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    const read = async (until: (t: string) => boolean) => {
      while (!until(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    };
    await read((t) => t.includes('event: ready'));
    const body = await exec({ code: "call_tool('fixture','echo',{message:'live'}); 'streamed'" });
    await read((t) => t.split('event: activity').length > 2);
    controller.abort();
    const events = text
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)))
      .filter((e) => e.id !== undefined);
    expect(events.map((e) => e.id)).toEqual([body.activity_id, `${body.activity_id}.0001`]);
  });

  it('the CLI reads the history through the gateway', async () => {
    const list = await runCli([
      'activity',
      'list',
      '--config',
      configFile,
      '--limit',
      '3',
      '-o',
      'json',
    ]);
    expect(list.code).toBe(0);
    expect(list.json.items).toHaveLength(3);
    const id =
      list.json.items.find((r: Json) => r.kind === 'execution')?.id ?? list.json.items[0].parent_id;
    const shown = await runCli(['activity', 'show', id, '--config', configFile, '-o', 'json']);
    expect(shown.json.id).toBe(id);
    expect(Array.isArray(shown.json.children)).toBe(true);
    const bad = await runCli(['activity', 'list', '--config', configFile, '--status', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--status must be one of/);
    const searched = await runCli([
      'activity',
      'list',
      '--config',
      configFile,
      '--search',
      'NEEDLE-42',
      '--kind',
      'tool_call',
      '--surface',
      'rest',
      '--caller',
      'admin',
      '--tool',
      'echo',
      '--until',
      '2999-01-01',
      '-o',
      'json',
    ]);
    expect(searched.code).toBe(0);
    expect(searched.json.items.map((r: Json) => [r.tool, r.args])).toEqual([
      ['echo', { message: 'Needle-42' }],
    ]);
    const early = await runCli(['activity', 'list', '--config', configFile, '--until', 'soon']);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/--until must be an ISO 8601 date or time/);
  });
});

describe('activity across a restart', () => {
  it('keeps all 30 executions after SIGTERM (flushed on a clean stop) and reads them from the database', async () => {
    const file = writeConfig({ mcpServers: [SERVERS.fixture] });
    let g = await startGateway(file);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const { json } = await g.rest('POST', '/api/v1/code/exec', { code: String(i) });
      ids.push(json.activity_id);
    }
    expect(await g.stop()).toBe(0);
    // No gateway now: the CLI reads the database itself.
    const offline = await runCli([
      'activity',
      'list',
      '--config',
      file,
      '--limit',
      '50',
      '-o',
      'json',
    ]);
    expect(offline.code).toBe(0);
    expect(offline.json.total).toBe(30);
    g = await startGateway(file);
    const { json } = await g.rest('GET', '/api/v1/activity?kind=execution&limit=100');
    expect(json.items.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
    await g.stop();
  }, 60_000);

  it('records nothing with activity_enabled false, and says so on the routes', async () => {
    const file = writeConfig({ activity_enabled: false, mcpServers: [] });
    const g = await startGateway(file);
    const { json } = await g.rest('POST', '/api/v1/code/exec', { code: '1' });
    expect(json.activity_id).toBeUndefined();
    const list = await g.rest('GET', '/api/v1/activity');
    expect(list.status).toBe(503);
    expect(list.json.error.message).toMatch(/activity_enabled/);
    await g.stop();
  }, 30_000);
});
