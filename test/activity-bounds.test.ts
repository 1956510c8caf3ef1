/**
 * The history stays bounded and honest, through a real gateway: what a refused or failing
 * request writes is cut, a record has a total bound, a key or token cannot label its run as
 * the dashboard's, `since` is time, secret-looking arguments are redacted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { runCli, SERVERS, writeConfig } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: activity records as JSON
type Json = any;

/** docs/activity.md: a stored record's JSON stays under 64 KiB; a refused program keeps 8 KiB of its code. */
const RECORD_MAX_BYTES = 65_536;
const REFUSED_CODE_KEPT = 8192;
const BIG = 300_000;

let gateway: RunningGateway;
let configFile: string;
let agent: string;

beforeAll(async () => {
  configFile = writeConfig({
    mcpServers: [SERVERS.fixture],
    // The list replaces the default one: `session_id` is added, `authorization` left out.
    activity_redact_keys: ['password', 'token', 'secret', 'api_key', 'session_id'],
  });
  gateway = await startGateway(configFile);
  await waitUntilReady(gateway);
  const token = await runCli([
    'token',
    'create',
    '--config',
    configFile,
    '--name',
    'agent',
    '--servers',
    'fixture',
  ]);
  agent = token.stdout.trim();
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  if (gateway) fs.rmSync(path.dirname(gateway.configFile), { recursive: true, force: true });
});

const record = async (id: string): Promise<Json> =>
  (await gateway.rest('GET', `/api/v1/activity/${id}`)).json;

const exec = async (body: unknown, headers?: Record<string, string>) =>
  (
    await gateway.rest(
      'POST',
      '/api/v1/code/exec',
      body,
      headers ? { 'content-type': 'application/json', ...headers } : undefined,
    )
  ).json;

async function mcp(path: '/mcp' | '/mcp/codemode'): Promise<Client> {
  const client = new Client({ name: 'codemux-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`)));
  return client;
}

const cutCode = (r: Json, size: number, kept = REFUSED_CODE_KEPT) => {
  expect(r.code.length).toBeLessThan(kept + 100);
  expect(r.code.endsWith(`…[cut: ${size} bytes, first ${kept} kept]`)).toBe(true);
};

describe('a refused oversized program', () => {
  const big = `// ${'x'.repeat(BIG - 5)}\n1`;

  it('is recorded with 8 KiB of its code over REST, from an agent token too', async () => {
    for (const headers of [undefined, { 'x-api-key': agent }]) {
      const body = await exec({ code: big }, headers);
      expect(body.error.code).toBe('INVALID_REQUEST');
      const r = await record(body.activity_id);
      expect(r.status).toBe('rejected');
      cutCode(r, BIG);
    }
  });

  it('is recorded with 8 KiB of its code over MCP (code_execution) and code mode (execute)', async () => {
    const client = await mcp('/mcp');
    const viaMcp = await client.callTool({ name: 'code_execution', arguments: { code: big } });
    await client.close();
    cutCode(await record((viaMcp.structuredContent as Json).activity_id), BIG);

    const codemode = await mcp('/mcp/codemode');
    // Over the source limit: refused before running, in execute's own words.
    const viaExecute = await codemode.callTool({ name: 'execute', arguments: { code: big } });
    await codemode.close();
    const r = await record((viaExecute.structuredContent as Json).activity_id);
    expect(r.error.message).toMatch(/script size limit exceeded/);
    // Refused before anything ran, as code_execution's oversized program.
    expect(r.status).toBe('rejected');
    cutCode(r, BIG);
  });

  it('is recorded with 8 KiB of its code from the CLI, through the gateway', async () => {
    const file = path.join(path.dirname(configFile), 'big.js');
    fs.writeFileSync(file, big);
    const run = await runCli(['code', 'exec', '--config', configFile, '--file', file]);
    expect(run.json.error.code).toBe('INVALID_REQUEST');
    const r = await record(run.activityId!);
    expect(r.surface).toBe('cli');
    cutCode(r, BIG);
  });

  it('keeps 8 KiB of a code tool whose call was refused (INVALID_ARGS)', async () => {
    const code = `// ${'c'.repeat(20_000)}\nn + 1`;
    await gateway.rest('POST', '/api/v1/code-tools', { name: 'big_tool' });
    await gateway.rest('POST', '/api/v1/code-tools/big_tool/params', {
      name: 'n',
      type: 'integer',
      required: true,
    });
    await gateway.rest('PUT', '/api/v1/code-tools/big_tool', { code });
    const run = await gateway.rest('POST', '/api/v1/code-tools/big_tool/run', {
      arguments: { n: 'not a number' },
    });
    const r = await record(run.json.activity_id);
    expect(r).toMatchObject({ surface: 'code_tool', status: 'rejected' });
    cutCode(r, Buffer.byteLength(code));
  });

  it('cuts a made-up script or language name', async () => {
    const body = await exec({ script: 's'.repeat(BIG) });
    const r = await record(body.activity_id);
    expect(r.script.length).toBeLessThan(1100);
    expect(r.script).toMatch(/…\[cut: 300000 bytes, first 1024 kept\]$/);
    const lang = await record((await exec({ code: '1', language: 'l'.repeat(BIG) })).activity_id);
    expect(lang.status).toBe('rejected');
    expect(lang.language.length).toBeLessThan(1100);
    expect(lang.error.message.length).toBeLessThan(8300);
  });
});

describe('a failing program', () => {
  it('is recorded with its thrown message and its logs cut, the record under its bound', async () => {
    const body = await exec({
      code: "for (let i = 0; i < 100; i++) console.log(i + ' ' + 'l'.repeat(4000)); throw new Error('m'.repeat(300000))",
    });
    // The caller gets the message whole; the history keeps 8 KiB of it.
    expect(body.error.message.length).toBeGreaterThanOrEqual(300_000);
    const r = await record(body.activity_id);
    expect(r.error.code).toBe('RUNTIME_ERROR');
    expect(r.error.message).toMatch(/m…\[cut: \d+ bytes, first 8192 kept\]$/);
    expect(r.logs.at(-1)).toMatch(/^…\[cut: \d+ bytes in 100 lines, first 8192 kept\]$/);
    const { children: _children, ...stored } = r;
    expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThanOrEqual(RECORD_MAX_BYTES);
  });

  it('keeps every record of the list under its bound, whatever was sent', async () => {
    // Quotes and control characters take up to six bytes of JSON each.
    await exec({ code: `// ${'"\\u0001'.repeat(40_000)}\nthrow new Error('"'.repeat(9000))` });
    const list = await gateway.rest('GET', '/api/v1/activity?limit=50');
    expect(list.json.items.length).toBeGreaterThanOrEqual(8);
    for (const item of list.json.items)
      expect(Buffer.byteLength(JSON.stringify(item)), item.id).toBeLessThanOrEqual(
        RECORD_MAX_BYTES,
      );
  });
});

describe('the surface a run is recorded with', () => {
  it('is ui only for the dashboard session; a key or token saying ui is recorded as rest', async () => {
    const ui = { 'x-codemux-surface': 'ui' };
    const asAdmin = await exec({ code: '1' }, { 'x-api-key': gateway.key, ...ui });
    const asAgent = await exec({ code: '1' }, { authorization: `Bearer ${agent}`, ...ui });
    expect((await record(asAdmin.activity_id)).surface).toBe('rest');
    expect((await record(asAgent.activity_id)).surface).toBe('rest');
    // The playground's extras (tool_calls, stats) are the dashboard's too.
    expect(asAgent.tool_calls).toBeUndefined();

    const login = await fetch(`${gateway.url}/ui/login`, {
      method: 'POST',
      body: new URLSearchParams({ apikey: gateway.key }),
      redirect: 'manual',
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const viaSession = await exec({ code: '1' }, { cookie, 'x-codemux-ui': '1', ...ui });
    expect(viaSession.tool_calls).toEqual([]);
    expect((await record(viaSession.activity_id)).surface).toBe('ui');
  });
});

describe('since', () => {
  it('is compared as time: a date after year 9999 returns nothing, a bad one is 400 naming since', async () => {
    const all = (await gateway.rest('GET', '/api/v1/activity?limit=1')).json.total;
    expect(all).toBeGreaterThan(0);
    for (const [since, total] of [
      ['99999-01-01', 0],
      ['%2B099999-01-01T00:00:00Z', 0],
      ['2000-01-01', all],
      ['-000001-01-01', all],
    ] as const) {
      const { status, json } = await gateway.rest('GET', `/api/v1/activity?since=${since}`);
      expect(status, since).toBe(200);
      expect(json.total, since).toBe(total);
    }
    for (const since of ['yesterday', '2026-02-30', '1']) {
      const { status, json } = await gateway.rest('GET', `/api/v1/activity?since=${since}`);
      expect(status).toBe(400);
      expect(json.error.message).toMatch(/^since must be an ISO 8601 date or time/);
    }
    const cli = await runCli([
      'activity',
      'list',
      '--config',
      configFile,
      '--since',
      '99999-01-01',
      '-o',
      'json',
    ]);
    expect(cli.json.total).toBe(0);
    const bad = await runCli(['activity', 'list', '--config', configFile, '--since', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since must be an ISO 8601 date or time/);
  });
});

describe('secret-looking arguments', () => {
  it('are stored as [redacted] under the configured keys, in the args and the input', async () => {
    const body = await exec({
      code: "call_tool('fixture', 'sleep', { ms: 1, sessionId: 's-1', Authorization: 'kept', nested: [{ db_password: 'p-2' }] }); 1",
      input: { apiKey: 'k-3', name: 'ada' },
    });
    const r = await record(body.activity_id);
    expect(r.input).toEqual({ apiKey: '[redacted]', name: 'ada' });
    expect(r.children[0].args).toEqual({
      ms: 1,
      sessionId: '[redacted]',
      // Not in this gateway's list (it replaces the default one).
      Authorization: 'kept',
      nested: [{ db_password: '[redacted]' }],
    });
  });
});
