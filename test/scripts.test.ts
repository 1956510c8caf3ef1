import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type RunningGateway, startGateway } from './gateway.ts';
import { runCli, SERVERS, writeConfig } from './helpers.ts';

const FETCH_PRS = `const prs: number[] = input.prs;
const rs = call_tools(prs.map((n) => ({ server: 'fixture', tool: 'echo', args: { message: 'pr ' + n } })));
({ titles: rs.map((r) => (r.ok ? JSON.parse(r.result.content[0].text).message : 'ERR')) });
`;
const THROWS = "const a = 1;\nif (input.fail) throw new TypeError('bad ' + a);\nreturn {a};\n";

let gateway: RunningGateway;
let configFile: string;
let scripts: string;
let client: Client;

beforeAll(async () => {
  configFile = writeConfig({ mcpServers: [SERVERS.fixture] });
  scripts = path.join(path.dirname(configFile), 'scripts');
  fs.mkdirSync(scripts);
  fs.writeFileSync(path.join(scripts, 'fetch-prs.ts'), FETCH_PRS);
  fs.writeFileSync(path.join(scripts, 'throws.js'), THROWS);
  fs.writeFileSync(path.join(scripts, 'half-written.js'), '');
  fs.writeFileSync(path.join(scripts, 'triage.js'), '1');
  fs.writeFileSync(path.join(scripts, 'triage.ts'), '1');
  gateway = await startGateway(configFile);
  client = new Client({ name: 't', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
}, 30_000);

afterAll(async () => {
  await client?.close();
  await gateway?.stop();
});

const exec = (body: unknown, headers?: Record<string, string>) =>
  gateway.rest('POST', '/api/v1/code/exec', body, headers);

describe('stored scripts over MCP', () => {
  it('runs a dropped-in .ts script by name with input', async () => {
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { script: 'fetch-prs', input: { prs: [1, 2] } },
    });
    expect(result.isError).toBe(false);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({
      ok: true,
      value: { titles: ['pr 1', 'pr 2'] },
    });
  });

  it('answers refusals in the envelope with isError', async () => {
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { script: 'fetch-pr' },
    });
    expect(result.isError).toBe(true);
    const envelope = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
    expect(envelope.error).toEqual({
      code: 'SCRIPT_NOT_FOUND',
      message: `Cannot execute stored script: stored script "fetch-pr" not found in ${scripts}. Available scripts (2): fetch-prs, throws`,
    });
  });
});

describe('stored scripts over REST', () => {
  it.each([
    [{ script: 'throws', input: {} }, 200, undefined],
    [{ script: 'nope' }, 404, 'SCRIPT_NOT_FOUND'],
    [{ script: '../etc/passwd' }, 400, 'INVALID_SCRIPT_NAME'],
    [{ script: 'half-written' }, 400, 'SCRIPT_UNUSABLE'],
    [{ script: 'triage' }, 400, 'SCRIPT_UNUSABLE'],
    [{ script: 'fetch-prs', language: 'javascript' }, 400, 'INVALID_LANGUAGE'],
    [{ script: 'throws', code: '1' }, 400, 'INVALID_REQUEST'],
  ])('%j -> %i %s', async (body, status, code) => {
    const response = await exec(body);
    expect(response.status).toBe(status);
    if (code) expect(response.json.error.code).toBe(code);
    expect(response.json.request_id).toBeDefined();
  });

  it('gives results byte-identical to the same source sent inline', async () => {
    for (const input of [{ fail: false }, { fail: true }]) {
      const stored = await exec({ script: 'throws', input });
      const inline = await exec({ code: THROWS, input });
      // Each run has its own request and activity record; the rest is identical.
      const { request_id: _a, activity_id: _c, ...storedBody } = stored.json;
      const { request_id: _b, activity_id: _d, ...inlineBody } = inline.json;
      expect(JSON.stringify(storedBody)).toBe(JSON.stringify(inlineBody));
    }
    const failed = await exec({ script: 'throws', input: { fail: true } });
    expect(failed.json.error).toMatchObject({
      code: 'RUNTIME_ERROR',
      message: 'TypeError: bad 1',
      line: 2,
    });
  });

  it('applies the same policy as inline code', async () => {
    const response = await exec({
      script: 'fetch-prs',
      input: { prs: [1, 2, 3] },
      options: { allowed_servers: ['other'] },
    });
    expect(response.json.value.titles).toEqual(['ERR', 'ERR', 'ERR']);
  });

  it('sees an atomic replace and a new file on the next call, with no restart', async () => {
    const tmp = path.join(scripts, '.new.tmp');
    fs.writeFileSync(tmp, '"version 1"');
    fs.renameSync(tmp, path.join(scripts, 'live.js'));
    expect((await exec({ script: 'live' })).json.value).toBe('version 1');
    fs.writeFileSync(tmp, '"version 2"');
    fs.renameSync(tmp, path.join(scripts, 'live.js'));
    expect((await exec({ script: 'live' })).json.value).toBe('version 2');
  });

  it('lists scripts to the administrator, naming the directory', async () => {
    const response = await gateway.rest('GET', '/api/v1/code/scripts');
    expect(response.status).toBe(200);
    expect(response.json.success).toBe(true);
    expect(response.json.data.dir).toBe(scripts);
    expect(response.json.data.scripts).toEqual(
      expect.arrayContaining([
        { name: 'fetch-prs', paths: [path.join(scripts, 'fetch-prs.ts')], status: 'ok' },
        {
          name: 'half-written',
          paths: [path.join(scripts, 'half-written.js')],
          status: 'invalid',
          reason: 'empty',
        },
        {
          name: 'triage',
          paths: [path.join(scripts, 'triage.js'), path.join(scripts, 'triage.ts')],
          status: 'ambiguous',
        },
      ]),
    );
  });
});

describe("a stored script's source over REST", () => {
  it('reads the source, language and path of a script by name', async () => {
    const response = await gateway.rest('GET', '/api/v1/code/scripts/fetch-prs');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      success: true,
      data: {
        name: 'fetch-prs',
        language: 'typescript',
        path: path.join(scripts, 'fetch-prs.ts'),
        source: FETCH_PRS,
      },
    });
  });

  it.each([
    [
      'an unknown name',
      'fetch-pr',
      404,
      'SCRIPT_NOT_FOUND',
      'stored script "fetch-pr" not found in',
    ],
    ['a path', '..%2Fmcp_config', 400, 'INVALID_SCRIPT_NAME', 'character "." is not allowed'],
    ['an empty file', 'half-written', 400, 'SCRIPT_UNUSABLE', 'is empty'],
    ['two files', 'triage', 400, 'SCRIPT_UNUSABLE', 'is ambiguous'],
  ])('refuses %s with %i, naming why', async (_case, name, status, code, words) => {
    const response = await gateway.rest('GET', `/api/v1/code/scripts/${name}`);
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ success: false, code });
    expect(response.json.error).toContain(words);
    expect(response.json.error).not.toContain('Cannot execute');
  });
});

describe('stored scripts and agent tokens', () => {
  let headers: Record<string, string>;
  beforeAll(async () => {
    const created = await runCli([
      'token',
      'create',
      '--name',
      'scripts-agent',
      '--servers',
      'fixture',
      '--config',
      configFile,
      '-o',
      'json',
    ]);
    headers = { 'x-api-key': created.json.token, 'content-type': 'application/json' };
  });

  it('runs a script the token names', async () => {
    expect((await exec({ script: 'fetch-prs', input: { prs: [7] } }, headers)).json.value).toEqual({
      titles: ['pr 7'],
    });
  });

  it('discloses nothing in refusals', async () => {
    const missing = await exec({ script: 'nope' }, headers);
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toBe(
      'Cannot execute stored script: stored script "nope" not found (the stored-script listing is available to administrators only; an agent-token caller must already know the script name)',
    );
    const unusable = await exec({ script: 'half-written' }, headers);
    expect(unusable.json.error.message).not.toContain(scripts);
    const ambiguous = await exec({ script: 'triage' }, headers);
    expect(ambiguous.json.error.message).not.toContain(scripts);
  });

  it('gets 403 from the listing with a body that names nothing', async () => {
    const response = await gateway.rest('GET', '/api/v1/code/scripts', undefined, headers);
    expect(response.status).toBe(403);
    expect(response.json).toEqual({
      success: false,
      error:
        'Agent tokens cannot list stored scripts (the stored-script listing is available to administrators only)',
    });
  });

  it("gets 403 from a script's source with a body that names nothing", async () => {
    for (const name of ['fetch-prs', 'nope']) {
      const response = await gateway.rest(
        'GET',
        `/api/v1/code/scripts/${name}`,
        undefined,
        headers,
      );
      expect(response.status).toBe(403);
      expect(response.json).toEqual({
        success: false,
        error:
          "Agent tokens cannot read stored scripts' source (it is available to administrators only)",
      });
    }
  });
});

describe('the CLI', () => {
  it('code exec --script runs on the daemon', async () => {
    const out = await runCli([
      'code',
      'exec',
      '--config',
      configFile,
      '--script',
      'fetch-prs',
      '--input',
      '{"prs": [3]}',
    ]);
    expect(out).toMatchObject({ code: 0, json: { ok: true, value: { titles: ['pr 3'] } } });
  });

  it('code exec --script runs standalone, with the same result', async () => {
    const standalone = writeConfig({ mcpServers: [SERVERS.fixture] });
    const dir = path.join(path.dirname(standalone), 'scripts');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'fetch-prs.ts'), FETCH_PRS);
    const out = await runCli([
      'code',
      'exec',
      '--config',
      standalone,
      '--script',
      'fetch-prs',
      '--input',
      '{"prs": [3]}',
    ]);
    expect(out).toMatchObject({ code: 0, json: { ok: true, value: { titles: ['pr 3'] } } });
    const missing = await runCli(['code', 'exec', '--config', standalone, '--script', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe('SCRIPT_NOT_FOUND');
  });

  it('refuses --script with --code (exit 2)', async () => {
    const out = await runCli([
      'code',
      'exec',
      '--config',
      configFile,
      '--script',
      'x',
      '--code',
      '1',
    ]);
    expect(out.code).toBe(2);
  });

  it('lists scripts from the daemon, as text, JSON and YAML', async () => {
    const text = await runCli(['code', 'scripts', 'list', '--config', configFile]);
    expect(text.stdout).toContain(`Stored scripts in ${scripts} (`);
    expect(text.stdout).toMatch(/fetch-prs\s+ok\s+/);
    expect(text.stdout).toMatch(/triage\s+ambiguous\s+/);
    expect(text.stdout).toContain('Run one with: codemux code exec --script <name>');
    const json = await runCli(['code', 'scripts', 'list', '--config', configFile, '-o', 'json']);
    expect(json.json.dir).toBe(scripts);
    const yaml = await runCli(['code', 'scripts', 'list', '--config', configFile, '-o', 'yaml']);
    expect(parseYaml(yaml.stdout)).toEqual(json.json);
  });

  it('lists scripts from the directory without a daemon, and an absent directory as empty', async () => {
    const alone = writeConfig({});
    const out = await runCli(['code', 'scripts', 'list', '--config', alone, '-o', 'json']);
    expect(out.json).toEqual({ dir: path.join(path.dirname(alone), 'scripts'), scripts: [] });
    expect(fs.existsSync(path.join(path.dirname(alone), 'scripts'))).toBe(false);
  });
});
