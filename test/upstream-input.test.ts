/**
 * Upstream elicitation end to end with real parts: `codemux serve` over a fixture server that
 * asks its client for input in the middle of a call (a 2.x SDK server answering a 2026-07-28
 * client with `input_required`, and a 1.x SDK server sending `elicitation/create`). The input
 * is answered by the calling MCP client's elicitation, or, for a client that cannot be asked, by
 * `codemux input answer|decline`; nobody answering expires it at approval_timeout_ms. The
 * values given never appear in the activity history, the input requests or the gateway's logs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, ROOT, runCli, until, writeConfig } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const ASKING = path.join(ROOT, 'test', 'fixtures', 'asking-server.mjs');
const signUp = (server: string) => `call_tool('${server}','sign_up',{})`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const signedUp = (name: string, age: number) => ({
  ok: true,
  result: { content: [{ type: 'text', text: `signed up name sha256:${sha(name)} (age ${age})` }] },
});
/** The tool's isError answer, as the program gets it. */
const toolError = (text: string) => ({
  ok: false,
  error: { code: 'TOOL_ERROR', message: text },
  result: { isError: true, content: [{ type: 'text', text }] },
});

/** A config over both fixture generations (`ask_modern`, `ask_legacy`). */
function askingConfig(extra: Record<string, unknown> = {}): string {
  return writeConfig({
    ...extra,
    mcpServers: [
      { name: 'ask_modern', command: process.execPath, args: [ASKING, 'modern'] },
      { name: 'ask_legacy', command: process.execPath, args: [ASKING, 'legacy'] },
    ],
  });
}

/** The one pending input request, once there is one. */
const pendingInput = (g: RunningGateway): Promise<Json> =>
  until('a pending input request', async () => {
    const { json } = await g.rest('GET', '/api/v1/inputs?status=pending');
    return json.items[0];
  });

/** The activity record of a REST exec with its children (the calls and their history lines). */
async function activityOf(g: RunningGateway, id: string): Promise<Json> {
  return until('the execution recorded', async () => {
    const { status, json } = await g.rest('GET', `/api/v1/activity/${id}`);
    return status === 200 ? json : undefined;
  });
}

describe('an upstream asking for input during a call', () => {
  let g: RunningGateway;
  const cli = (...args: string[]) => runCli([...args, '--config', g.configFile]);

  beforeAll(async () => {
    g = await startGateway(askingConfig({ tool_policy: { approval_timeout_ms: 60_000 } }));
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it('connects to both generations: 2026-07-28 and 2025-11-25', async () => {
    const { json } = await g.rest('GET', '/api/v1/servers');
    const versions = Object.fromEntries(
      json.value.servers.map((s: Json) => [s.name, s.protocol_version]),
    );
    expect(versions).toEqual({ ask_modern: '2026-07-28', ask_legacy: '2025-11-25' });
  });

  it.each(['ask_modern', 'ask_legacy'])(
    '%s: relays the form to a calling client that declared elicitation; the form defaults fill what it left out',
    async (server) => {
      const asked: Json[] = [];
      const client = new Client(
        { name: 'person', version: '1' },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { name: 'Ada Lovelace' } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`), {
          requestInit: { headers: { 'x-api-key': g.key } },
        }),
      );
      try {
        const result: Json = await client.callTool(
          { name: 'code_execution', arguments: { code: signUp(server) } },
          undefined,
          { timeout: 60_000 },
        );
        expect(result.structuredContent.value).toMatchObject(signedUp('Ada Lovelace', 30));
        expect(asked).toHaveLength(1);
        expect(asked[0].requestedSchema.required).toEqual(['name']);
        expect(asked[0].message).toContain(`the upstream server ${server} (tool sign_up) asks`);
        expect(asked[0].message).toContain('sign_up needs your name');
        const [input] = (await g.rest('GET', '/api/v1/inputs?status=answered')).json.items;
        expect(input).toMatchObject({
          server,
          tool: 'sign_up',
          caller: 'admin',
          answered_by: 'the MCP client (elicitation)',
        });
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it.each(['ask_modern', 'ask_legacy'])(
    '%s: a 2026-07-28 client that declared elicitation is asked with input_required, and its retry answers',
    async (server) => {
      const asked: Json[] = [];
      const client = new ModernClient(
        { name: 'person-2026', version: '1' },
        { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { name: 'Mary Somerville', age: 91 } };
      });
      await client.connect(
        new ModernTransport(new URL(`${g.url}/mcp`), {
          requestInit: { headers: { 'x-api-key': g.key } },
        }),
      );
      try {
        expect(client.getProtocolEra()).toBe('modern');
        const result: Json = await client.callTool(
          { name: 'code_execution', arguments: { code: signUp(server) } },
          { timeout: 60_000 },
        );
        expect(result.structuredContent.value).toMatchObject(signedUp('Mary Somerville', 91));
        expect(asked).toHaveLength(1);
        expect(asked[0].message).toContain(`the upstream server ${server} (tool sign_up) asks`);
        const [input] = (await g.rest('GET', '/api/v1/inputs?status=answered')).json.items;
        expect(input).toMatchObject({
          server,
          answered_by: 'the MCP client (input_required)',
        });
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('a client that cannot be asked: the input waits for `codemux input answer`; values never show', async () => {
    const exec = g.rest('POST', '/api/v1/code/exec', { code: signUp('ask_legacy') });
    const input = await pendingInput(g);
    expect(input).toMatchObject({
      status: 'pending',
      server: 'ask_legacy',
      tool: 'sign_up',
      message: 'sign_up needs your name',
      caller: 'admin',
    });
    const listed = await cli('input', 'list', '--status', 'pending');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(input.id);
    expect(listed.stdout).toContain('ask_legacy.sign_up');
    expect(listed.stdout).toContain(`${input.id} asks: sign_up needs your name`);
    // A value that does not fit the form is refused; nothing is sent.
    const wrong = await cli(
      'input',
      'answer',
      input.id,
      '--set',
      'name=x',
      '--json',
      '{"age":"old"}',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('"age" must be a number; nothing was sent');
    const answered = await cli(
      'input',
      'answer',
      input.id,
      '--set',
      'name=Grace Hopper',
      '--set',
      'age=41',
    );
    expect(answered.stderr).toBe('');
    expect(answered.stdout).toBe(
      `answered ${input.id}: asked by ask_legacy.sign_up (by admin via cli)\n`,
    );
    const { json } = await exec;
    expect(json.value).toEqual(signedUp('Grace Hopper', 41));
    const again = await cli('input', 'decline', input.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(`input request ${input.id} was already answered by admin via cli`);
    // What was asked and how it was answered is in the history; the values are nowhere.
    const record = await activityOf(g, json.activity_id);
    expect(record.children[0].logs).toEqual([
      `input ${input.id} asked by ask_legacy.sign_up (fields: name, age): answered by admin via cli`,
    ]);
    const everything = JSON.stringify([
      record,
      (await g.rest('GET', '/api/v1/inputs')).json,
      (await g.rest('GET', '/api/v1/activity?limit=500')).json,
    ]);
    expect(everything).not.toContain('Grace');
    expect(g.output()).toContain(`ask_legacy.sign_up asks for input ${input.id}`);
    expect(g.output()).not.toContain('Grace');
  }, 60_000);

  it('declined: the server hears decline and the program gets its answer', async () => {
    const exec = g.rest('POST', '/api/v1/code/exec', { code: signUp('ask_modern') });
    const input = await pendingInput(g);
    const declined = await cli('input', 'decline', input.id, '-o', 'json');
    expect(declined.code).toBe(0);
    expect(declined.json.input).toMatchObject({
      id: input.id,
      status: 'declined',
      answered_by: 'admin via cli',
    });
    const { json } = await exec;
    expect(json.value).toMatchObject(
      toolError('sign_up: the user declined to give a name; nobody was signed up'),
    );
    const record = await activityOf(g, json.activity_id);
    expect(record.children[0]).toMatchObject({
      status: 'tool_error',
      logs: [
        `input ${input.id} asked by ask_modern.sign_up (fields: name, age): declined by admin via cli`,
      ],
    });
  }, 60_000);

  it('REST: an agent token gets 403 on every route; an unknown id is 404', async () => {
    const created = await g.rest('POST', '/api/v1/tokens', {
      name: 'agent1',
      servers: ['ask_modern'],
    });
    const token = created.json.token ?? created.json.value?.token;
    expect(token).toBeTruthy();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (const [method, route] of [
      ['GET', '/api/v1/inputs'],
      ['GET', '/api/v1/inputs/x'],
      ['GET', '/api/v1/inputs/stream'],
      ['POST', '/api/v1/inputs/x/answer'],
      ['POST', '/api/v1/inputs/x/decline'],
    ] as const) {
      const answer = await g.rest(method, route, method === 'POST' ? {} : undefined, headers);
      expect(answer.status, route).toBe(403);
    }
    const unknown = await g.rest('POST', '/api/v1/inputs/nope/answer', { content: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('INPUT_NOT_FOUND');
  });
});

describe('nobody answering', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    g = await startGateway(askingConfig({ tool_policy: { approval_timeout_ms: 1_000 } }));
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it.each(['ask_modern', 'ask_legacy'])(
    '%s: the input expires at approval_timeout_ms, the server hears cancel',
    async (server) => {
      const { json } = await g.rest('POST', '/api/v1/code/exec', { code: signUp(server) });
      expect(json.value).toMatchObject(
        toolError('sign_up: nobody answered (cancelled); nobody was signed up'),
      );
      const record = await activityOf(g, json.activity_id);
      expect(record.children[0].logs).toEqual([
        expect.stringMatching(
          new RegExp(
            `^input \\S+ asked by ${server}\\.sign_up \\(fields: name, age\\): nobody answered within 1000 ms \\(tool_policy\\.approval_timeout_ms\\); the server was told cancel$`,
          ),
        ),
      ]);
      const [input] = (await g.rest('GET', '/api/v1/inputs?status=expired')).json.items;
      expect(input).toMatchObject({ server, status: 'expired', answered_by: 'timeout' });
    },
    60_000,
  );
});

describe('a run that yields while its call waits on input', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    g = await startGateway(
      askingConfig({
        code_execution_yield_ms: 1_000,
        tool_policy: { approval_timeout_ms: 60_000 },
      }),
    );
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it('answers running with waiting_for_input naming the request; answered, the run ends', async () => {
    const { json: running } = await g.rest('POST', '/api/v1/code/exec', {
      code: signUp('ask_legacy'),
    });
    expect(running).toMatchObject({
      ok: true,
      status: 'running',
      waiting_for: [],
      waiting_for_input: [{ input_id: expect.any(String), server: 'ask_legacy', tool: 'sign_up' }],
    });
    const id = running.waiting_for_input[0].input_id;
    const answered = await g.rest('POST', `/api/v1/inputs/${id}/answer`, {
      content: { name: 'Sofia Kovalevskaya', age: 41 },
    });
    expect(answered.json.input).toMatchObject({ status: 'answered', answered_by: 'admin' });
    const { json } = await g.rest(
      'GET',
      `/api/v1/executions/${running.execution_id}?wait_ms=30000`,
    );
    expect(json.value).toMatchObject(signedUp('Sofia Kovalevskaya', 41));
  }, 60_000);
});

describe('standalone code exec (no gateway)', () => {
  it('declines at once when stdin is not a terminal', async () => {
    const configFile = askingConfig({ listen: '127.0.0.1:1' });
    const run = await runCli([
      'code',
      'exec',
      '--config',
      configFile,
      '--code',
      signUp('ask_legacy'),
    ]);
    expect(run.code).toBe(0);
    expect(run.json.value).toMatchObject(
      toolError('sign_up: the user declined to give a name; nobody was signed up'),
    );
    expect(run.stderr).toContain(
      'codemux: ask_legacy.sign_up asks for input and stdin is not a terminal: declined',
    );
  }, 60_000);

  it.runIf(spawnSync('script', ['--version']).status === 0)(
    'on a terminal asks field by field on stderr; an empty line leaves the default',
    async () => {
      const configFile = askingConfig({ listen: '127.0.0.1:1' });
      const dir = path.dirname(configFile);
      const out = path.join(dir, 'out.json');
      const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
      const command = [process.execPath, BIN, 'code', 'exec', '--config', configFile]
        .concat(['--code', signUp('ask_modern')])
        .map(q)
        .join(' ');
      const screen = await new Promise<string>((resolve, reject) => {
        const child = spawn('script', ['-qfec', `${command} > ${q(out)}`, '/dev/null'], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let shown = '';
        child.stdout.on('data', (d) => (shown += d));
        child.stderr.on('data', (d) => (shown += d));
        // The terminal keeps the typed lines until the prompts read them.
        child.stdin.end('Emmy Noether\n\n');
        const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
        child.on('error', reject);
        child.on('close', () => {
          clearTimeout(timer);
          resolve(shown);
        });
      });
      expect(screen).toContain('codemux: ask_modern.sign_up asks for input');
      expect(screen).toContain('name (string, required): ');
      expect(screen).toContain('age (integer, default 30): ');
      const json = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(json.value).toMatchObject(signedUp('Emmy Noether', 30));
    },
    60_000,
  );
});
