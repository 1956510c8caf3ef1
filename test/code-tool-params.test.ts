import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { runCli, writeConfig } from './helpers.ts';

let gateway: RunningGateway;
let configFile: string;

beforeAll(async () => {
  configFile = writeConfig({ mcpServers: [] });
  gateway = await startGateway(configFile);
  expect((await gateway.rest('POST', '/api/v1/code-tools', { name: 'named' })).status).toBe(201);
  expect(
    (await gateway.rest('POST', '/api/v1/code-tools/named/params', { name: 'x', type: 'string' }))
      .status,
  ).toBe(201);
});

afterAll(async () => {
  await gateway?.stop();
});

const WHOLE = {
  name: 'whole',
  description: 'Greets',
  code: 'return greeting + " " + who + (toString ?? "")',
  timeout_ms: 2000,
  memory_limit_mb: 64,
  enabled: true,
  allowed_servers: [],
  params: [
    { name: 'who', type: 'string', required: true, description: 'whom' },
    { name: 'greeting', type: 'string', default_value: 'hello' },
    { name: 'toString', type: 'string' },
  ],
};

describe('param names the sandbox already defines are refused on every path', () => {
  // [method, route, body, text in the message]
  const REFUSED: Array<[string, string, unknown, string]> = [
    [
      'POST',
      '/api/v1/code-tools/named/params',
      { name: '__proto__', type: 'string' },
      'params.name "__proto__" cannot be a variable',
    ],
    [
      'POST',
      '/api/v1/code-tools/named/params',
      { name: 'Iterator', type: 'string' },
      'params.name "Iterator" is already defined in the sandbox',
    ],
    [
      'PUT',
      '/api/v1/code-tools/named/params/x',
      { name: 'Float16Array', type: 'string' },
      'params.name "Float16Array" is already defined in the sandbox',
    ],
    [
      'PUT',
      '/api/v1/code-tools/named/params/x',
      { name: 'call_tools', type: 'string' },
      'params.name "call_tools" is already defined in the sandbox',
    ],
    [
      'POST',
      '/api/v1/code-tools',
      { ...WHOLE, name: 'proto', params: [WHOLE.params[0], { name: '__proto__', type: 'object' }] },
      'params[1].name "__proto__" cannot be a variable',
    ],
  ];
  it.each(REFUSED)('%s %s %j', async (method, route, body, message) => {
    const response = await gateway.rest(method, route, body);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ ok: false, error: { code: 'INVALID_CODE_TOOL' } });
    expect(response.json.error.message).toContain(message);
    expect((await gateway.rest('GET', '/api/v1/code-tools/named')).json.value.params).toEqual([
      { name: 'x', description: '', type: 'string', required: false, default_value: null },
    ]);
    expect((await gateway.rest('GET', '/api/v1/code-tools/proto')).status).toBe(404);
  });

  it('by codemux code-tools import, which writes nothing', async () => {
    const file = path.join(path.dirname(configFile), 'globals.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        format: 'codemux.code-tools',
        version: 1,
        tools: [
          { name: 'fine', code: '1' },
          { name: 'clash', code: '1', params: [{ name: 'Float16Array', type: 'string' }] },
        ],
      }),
    );
    const refused = await runCli(['code-tools', 'import', file, '--config', configFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'tools[1].params[0].name "Float16Array" is already defined in the sandbox',
    );
    expect((await gateway.rest('GET', '/api/v1/code-tools/fine')).status).toBe(404);
  });
});

describe('POST /api/v1/code-tools with the whole tool', () => {
  it('creates it in one request: 201 with the tool, its params and its first version', async () => {
    const created = await gateway.rest('POST', '/api/v1/code-tools', WHOLE);
    expect(created.status).toBe(201);
    const { params, ...settings } = WHOLE;
    expect(created.json.value).toMatchObject({ ...settings, version: 1 });
    expect(created.json.value.params).toEqual([
      { name: 'who', description: 'whom', type: 'string', required: true, default_value: null },
      {
        name: 'greeting',
        description: '',
        type: 'string',
        required: false,
        default_value: 'hello',
      },
      { name: 'toString', description: '', type: 'string', required: false, default_value: null },
    ]);
    const versions = await gateway.rest('GET', '/api/v1/code-tools/whole/versions');
    expect(versions.json.value.versions).toEqual([
      expect.objectContaining({ version: 1, code: WHOLE.code, timeout_ms: 2000 }),
    ]);
    // A real call: the omitted `greeting` takes its default, the omitted `toString` is undefined.
    const run = await gateway.rest('POST', '/api/v1/code-tools/whole/run', {
      arguments: { who: 'Ada' },
    });
    expect(run.json).toMatchObject({ ok: true, value: 'hello Ada' });
  });

  it('keeps today’s step-by-step create: {name, description} has no version yet', async () => {
    const created = await gateway.rest('POST', '/api/v1/code-tools', {
      name: 'stepwise',
      description: 'later',
    });
    expect(created.status).toBe(201);
    expect(created.json.value).toMatchObject({ code: '', version: 0, params: [] });
    expect((await gateway.rest('GET', '/api/v1/code-tools/stepwise/versions')).json.value).toEqual({
      versions: [],
    });
  });

  // [a change to the whole tool, text in the message]
  const BAD: Array<[Record<string, unknown>, string]> = [
    [
      { params: [WHOLE.params[0], { name: 'y', type: 'money' }] },
      'params[1].type must be one of string',
    ],
    [{ params: [WHOLE.params[0], WHOLE.params[0]] }, 'params[1].name "who" appears twice'],
    [
      { params: [{ name: 'n', type: 'integer', default_value: 'x' }] },
      'params[0].default_value must be an integer',
    ],
    [{ params: 'who' }, 'params must be an array'],
    [{ memory_limit_mb: 4096 }, 'memory_limit_mb must be an integer from 1 to 512'],
    [{ timeout_ms: 0 }, 'timeout_ms must be an integer from 1 to 60000'],
    [{ enabled: 'yes' }, 'enabled must be true or false'],
    [{ allowed_servers: 'all' }, 'allowed_servers must be an array of server names'],
    [{ code: 42 }, 'code must be a string'],
    [{ version: 3 }, 'unknown field "version"'],
  ];
  it.each(BAD)('refuses %j with 400 naming the field, saving nothing', async (change, message) => {
    const response = await gateway.rest('POST', '/api/v1/code-tools', {
      ...WHOLE,
      name: 'broken',
      ...change,
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ ok: false, error: { code: 'INVALID_CODE_TOOL' } });
    expect(response.json.error.message).toContain(message);
    expect((await gateway.rest('GET', '/api/v1/code-tools/broken')).status).toBe(404);
  });

  it('answers 409 for a taken name and changes nothing', async () => {
    const response = await gateway.rest('POST', '/api/v1/code-tools', {
      ...WHOLE,
      name: 'named',
      code: '"replaced"',
    });
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('CODE_TOOL_EXISTS');
    expect((await gateway.rest('GET', '/api/v1/code-tools/named')).json.value).toMatchObject({
      code: '',
      version: 0,
      params: [{ name: 'x' }],
    });
  });
});
