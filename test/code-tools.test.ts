import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { BIN, runCli, SERVERS, writeConfig } from './helpers.ts';

let gateway: RunningGateway;
let configFile: string;
const clients: Client[] = [];

const WORKED_EXAMPLE = `const formatter = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency_code,
});
formatter.format(amount);`;

/** format_currency of the Vectoralix reference, made the way its configure page does. */
async function createFormatCurrency(gw: RunningGateway): Promise<void> {
  expect(
    (
      await gw.rest('POST', '/api/v1/code-tools', {
        name: 'format_currency',
        description: 'Formats money',
      })
    ).status,
  ).toBe(201);
  for (const param of [
    { name: 'amount', type: 'decimal', required: true, description: 'the amount' },
    { name: 'currency_code', type: 'string', required: true, description: '3-letter code' },
  ])
    expect((await gw.rest('POST', '/api/v1/code-tools/format_currency/params', param)).status).toBe(
      201,
    );
  expect(
    (await gw.rest('PUT', '/api/v1/code-tools/format_currency', { code: WORKED_EXAMPLE })).status,
  ).toBe(200);
}

async function httpClient(
  gw: RunningGateway,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'code-tools-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

const nextListChange = (client: Client) =>
  new Promise<void>((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
  );

beforeAll(async () => {
  configFile = writeConfig({ mcpServers: [SERVERS.fixture] });
  gateway = await startGateway(configFile);
  await createFormatCurrency(gateway);
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await gateway?.stop();
});

describe('code tools over MCP (Streamable HTTP)', () => {
  it('lists the tool beside code_execution with the schema derived from its params', async () => {
    const client = await httpClient(gateway);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['code_execution', 'format_currency']);
    expect(tools[1]).toMatchObject({
      description: 'Formats money',
      inputSchema: {
        type: 'object',
        properties: {
          amount: { type: 'number', description: 'the amount' },
          currency_code: { type: 'string', description: '3-letter code' },
        },
        required: ['amount', 'currency_code'],
        additionalProperties: false,
      },
    });
  });

  it('runs the worked example: $1,234.50 as the text content', async () => {
    const client = await httpClient(gateway);
    const result = await client.callTool({
      name: 'format_currency',
      arguments: { amount: 1234.5, currency_code: 'USD' },
    });
    expect(result).toMatchObject({ content: [{ type: 'text', text: '$1,234.50' }] });
    expect(result.isError).toBeFalsy();
  });

  it('refuses arguments that cannot be cast with an isError result naming the param', async () => {
    const client = await httpClient(gateway);
    const result = await client.callTool({
      name: 'format_currency',
      arguments: { amount: 'lots', currency_code: 'USD' },
    });
    expect(result.isError).toBe(true);
    const body = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
    expect(body).toMatchObject({
      code: 'INVALID_ARGS',
      message: expect.stringContaining('param "amount"'),
    });
  });

  it('sends tools/list_changed when a tool changes, and skips disabled or empty tools', async () => {
    const client = await httpClient(gateway);
    const created = nextListChange(client);
    await gateway.rest('POST', '/api/v1/code-tools', { name: 'empty_one' });
    await created;
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('empty_one');
    const disabled = nextListChange(client);
    await gateway.rest('PUT', '/api/v1/code-tools/empty_one', { code: '1', enabled: false });
    await disabled;
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('empty_one');
    const enabled = nextListChange(client);
    await gateway.rest('PUT', '/api/v1/code-tools/empty_one', { enabled: true });
    await enabled;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('empty_one');
    await gateway.rest('DELETE', '/api/v1/code-tools/empty_one');
  });

  it('shows an agent token only the code tools of its scope', async () => {
    await gateway.rest('POST', '/api/v1/code-tools', { name: 'other_tool' });
    await gateway.rest('PUT', '/api/v1/code-tools/other_tool', { code: '"secret"' });
    const created = await runCli([
      'token',
      'create',
      '--name',
      'fmt-only',
      '--code-tools',
      'format_currency',
      '--config',
      configFile,
      '-o',
      'json',
    ]);
    expect(created.code).toBe(0);
    expect(created.json.code_tools).toEqual(['format_currency']);
    const client = await httpClient(gateway, { authorization: `Bearer ${created.json.token}` });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'code_execution',
      'format_currency',
    ]);
    await expect(client.callTool({ name: 'other_tool', arguments: {} })).rejects.toThrow(
      /not found/,
    );
    const admin = await httpClient(gateway);
    expect((await admin.callTool({ name: 'other_tool', arguments: {} })).content).toEqual([
      { type: 'text', text: 'secret' },
    ]);
    // REST management is the admin's.
    const rest = await gateway.rest('GET', '/api/v1/code-tools', undefined, {
      'x-api-key': created.json.token,
    });
    expect(rest.status).toBe(403);
  });
});

describe('the REST routes', () => {
  // [method, route, body, status, error code, text in the message]
  const ERRORS: Array<[string, string, unknown, number, string, string]> = [
    ['POST', '/api/v1/code-tools', { name: 'bad name' }, 400, 'INVALID_CODE_TOOL', 'name must be'],
    [
      'POST',
      '/api/v1/code-tools',
      { name: 'code_execution' },
      400,
      'INVALID_CODE_TOOL',
      'reserved',
    ],
    ['POST', '/api/v1/code-tools', '{not json', 400, 'INVALID_CODE_TOOL', 'not valid JSON'],
    [
      'POST',
      '/api/v1/code-tools',
      { name: 'format_currency' },
      409,
      'CODE_TOOL_EXISTS',
      'already exists',
    ],
    [
      'GET',
      '/api/v1/code-tools/nope',
      undefined,
      404,
      'CODE_TOOL_NOT_FOUND',
      'no code tool named "nope"',
    ],
    ['PUT', '/api/v1/code-tools/nope', { code: '1' }, 404, 'CODE_TOOL_NOT_FOUND', 'nope'],
    ['DELETE', '/api/v1/code-tools/nope', undefined, 404, 'CODE_TOOL_NOT_FOUND', 'nope'],
    [
      'PUT',
      '/api/v1/code-tools/format_currency',
      { timeout_ms: 600000 },
      400,
      'INVALID_CODE_TOOL',
      'timeout_ms must be an integer from 1 to 60000',
    ],
    [
      'PUT',
      '/api/v1/code-tools/format_currency',
      { memory_limit_mb: 4096 },
      400,
      'INVALID_CODE_TOOL',
      'memory_limit_mb',
    ],
    [
      'PUT',
      '/api/v1/code-tools/format_currency',
      { name: 'x' },
      400,
      'INVALID_CODE_TOOL',
      'unknown field "name"',
    ],
    [
      'POST',
      '/api/v1/code-tools/format_currency/params',
      { name: 'amount', type: 'decimal' },
      409,
      'CODE_TOOL_EXISTS',
      'already has a param "amount"',
    ],
    [
      'POST',
      '/api/v1/code-tools/format_currency/params',
      { name: 'x', type: 'money' },
      400,
      'INVALID_CODE_TOOL',
      'params.type must be one of',
    ],
    [
      'POST',
      '/api/v1/code-tools/format_currency/params',
      { name: 'tools', type: 'string' },
      400,
      'INVALID_CODE_TOOL',
      'already defined in the sandbox',
    ],
    [
      'POST',
      '/api/v1/code-tools/nope/params',
      { name: 'x', type: 'string' },
      404,
      'CODE_TOOL_NOT_FOUND',
      'nope',
    ],
    [
      'PUT',
      '/api/v1/code-tools/format_currency/params/nope',
      { type: 'string' },
      404,
      'CODE_TOOL_NOT_FOUND',
      'no param "nope"',
    ],
    [
      'DELETE',
      '/api/v1/code-tools/format_currency/params/nope',
      undefined,
      404,
      'CODE_TOOL_NOT_FOUND',
      'no param "nope"',
    ],
    [
      'POST',
      '/api/v1/code-tools/format_currency/versions/99/restore',
      undefined,
      404,
      'CODE_TOOL_NOT_FOUND',
      'no version 99',
    ],
    [
      'POST',
      '/api/v1/code-tools/format_currency/versions/x/restore',
      undefined,
      400,
      'INVALID_CODE_TOOL',
      'positive integer',
    ],
    [
      'POST',
      '/api/v1/code-tools/format_currency/run',
      { arguments: { amount: 1 } },
      400,
      'INVALID_ARGS',
      'missing required param "currency_code"',
    ],
  ];
  it.each(ERRORS)('%s %s %j -> %i %s', async (method, route, body, status, code, message) => {
    const response = await gateway.rest(method, route, body);
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ ok: false, error: { code } });
    expect(response.json.error.message).toContain(message);
  });

  it('creates with the defaults, saves param rows at once, runs as an MCP call would', async () => {
    const created = await gateway.rest('POST', '/api/v1/code-tools', { name: 'greet' });
    expect(created.json.value).toMatchObject({
      name: 'greet',
      code: '',
      timeout_ms: 5000,
      memory_limit_mb: 128,
      enabled: true,
      allowed_servers: [],
      params: [],
    });
    await gateway.rest('POST', '/api/v1/code-tools/greet/params', {
      name: 'who',
      type: 'string',
      default_value: 'world',
    });
    const edited = await gateway.rest('PUT', '/api/v1/code-tools/greet/params/who', {
      type: 'string',
      default_value: 'you',
      description: 'name',
    });
    expect(edited.json.value.params).toEqual([
      { name: 'who', description: 'name', type: 'string', required: false, default_value: 'you' },
    ]);
    await gateway.rest('PUT', '/api/v1/code-tools/greet', { code: "return 'hello ' + who" });
    expect(
      (await gateway.rest('POST', '/api/v1/code-tools/greet/run', { arguments: {} })).json,
    ).toMatchObject({
      ok: true,
      value: 'hello you',
    });
    expect(
      (await gateway.rest('GET', '/api/v1/code-tools')).json.value.tools.map(
        (t: { name: string }) => t.name,
      ),
    ).toContain('greet');
  });

  it('keeps every saved body as a version and restores one', async () => {
    await gateway.rest('POST', '/api/v1/code-tools', { name: 'versioned' });
    await gateway.rest('PUT', '/api/v1/code-tools/versioned', { code: '"one"', timeout_ms: 1000 });
    await gateway.rest('PUT', '/api/v1/code-tools/versioned', { code: '"two"', timeout_ms: 2000 });
    const versions = await gateway.rest('GET', '/api/v1/code-tools/versioned/versions');
    expect(
      versions.json.value.versions.map((v: { version: number; code: string }) => [
        v.version,
        v.code,
      ]),
    ).toEqual([
      [2, '"two"'],
      [1, '"one"'],
    ]);
    const restored = await gateway.rest('POST', '/api/v1/code-tools/versioned/versions/1/restore');
    expect(restored.json.value).toMatchObject({ code: '"one"', timeout_ms: 1000, version: 3 });
    expect((await gateway.rest('POST', '/api/v1/code-tools/versioned/run', {})).json.value).toBe(
      'one',
    );
  });
});

describe('moving and keeping code tools', () => {
  it('keeps tools across a restart of codemux serve', async () => {
    await gateway.stop();
    gateway = await startGateway(configFile);
    const client = await httpClient(gateway);
    const result = await client.callTool({
      name: 'format_currency',
      arguments: { amount: '1234.5', currency_code: 'USD' },
    });
    expect(result.content).toEqual([{ type: 'text', text: '$1,234.50' }]);
  });

  it('exports every tool to a file that imports into an empty data dir', async () => {
    const file = path.join(path.dirname(configFile), 'tools.json');
    const exported = await runCli(['code-tools', 'export', '--file', file, '--config', configFile]);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(doc.format).toBe('codemux.code-tools');
    const fresh = writeConfig({});
    const imported = await runCli(['code-tools', 'import', file, '--config', fresh]);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain('format_currency');
    const shown = await runCli(['code-tools', 'show', 'format_currency', '--config', fresh]);
    expect(shown.json).toMatchObject({
      name: 'format_currency',
      code: WORKED_EXAMPLE,
      params: doc.tools.find((t: { name: string }) => t.name === 'format_currency').params,
    });
    const listed = await runCli(['code-tools', 'list', '-o', 'json', '--config', fresh]);
    expect(listed.json.tools.map((t: { name: string }) => t.name).sort()).toEqual(
      doc.tools.map((t: { name: string }) => t.name).sort(),
    );
    // A broken document is refused as a whole, naming the place.
    doc.tools[0].params = [{ name: 'x', type: 'nope' }];
    fs.writeFileSync(file, JSON.stringify(doc));
    const refused = await runCli(['code-tools', 'import', file, '--config', fresh]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('tools[0].params[0].type must be one of');
  });

  it('serves them on codemux stdio, which hears of a CLI import', async () => {
    const file = path.join(path.dirname(configFile), 'one.json');
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'stdio', '--config', configFile],
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'format_currency')?.inputSchema.required).toEqual([
      'amount',
      'currency_code',
    ]);
    expect(
      (
        await client.callTool({
          name: 'format_currency',
          arguments: { amount: 1234.5, currency_code: 'USD' },
        })
      ).content,
    ).toEqual([{ type: 'text', text: '$1,234.50' }]);
    const changed = nextListChange(client);
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 'codemux.code-tools',
        version: 1,
        tools: [{ name: 'from_file', code: '42' }],
      }),
    );
    expect((await runCli(['code-tools', 'import', file, '--config', configFile])).code).toBe(0);
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('from_file');
  });

  it('refuses code tools when enable_code_execution is false', async () => {
    const raw = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    const off = writeConfig({
      ...raw,
      api_key: gateway.key,
      enable_code_execution: false,
      data_dir: path.join(path.dirname(configFile), 'data'),
    });
    await gateway.stop();
    gateway = await startGateway(off);
    const client = await httpClient(gateway);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['code_execution']);
    const run = await gateway.rest('POST', '/api/v1/code-tools/format_currency/run', {
      arguments: { amount: 1, currency_code: 'USD' },
    });
    expect(run.json).toMatchObject({ ok: false, error: { code: 'FEATURE_DISABLED' } });
  });
});
