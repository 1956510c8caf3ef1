/**
 * Approvals from the command line with real parts: `codemux serve` holding a REST `code exec`
 * call to an annotated-destructive tool, `codemux approvals list|approve|deny`, and standalone
 * `code exec` asking on a terminal (a pseudo-terminal through util-linux `script`) or denying
 * when stdin is not one. The banner and `servers list` count the tools under ask and deny.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { BIN, runCli, settle } from './helpers.ts';
import { policyConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const SCHEMA = { type: 'object', properties: { path: { type: 'string' } } };
const TOOLS = [
  {
    name: 'wipe',
    description: 'Wipe',
    inputSchema: SCHEMA,
    annotations: { destructiveHint: true },
  },
  {
    name: 'drop',
    description: 'Drop',
    inputSchema: SCHEMA,
    annotations: { destructiveHint: true },
  },
  { name: 'nuke', description: 'Nuke', inputSchema: SCHEMA },
  { name: 'look', description: 'Look', inputSchema: SCHEMA, annotations: { readOnlyHint: true } },
];
/** wipe and drop ask (annotated destructive), nuke is denied (rule 1). */
const POLICY = { rules: [{ server: 'mut', tool: 'nuke', action: 'deny' }] };
const WIPE = "call_tool('mut','wipe',{path:'/tmp'})";
const NOT_A_TERMINAL =
  'mut.wipe was denied by code exec (stdin is not a terminal: run it on a terminal to be asked, or run it through `codemux serve` and decide with `codemux approvals approve ID`)';

/** A config with the mutable server listing TOOLS under POLICY (pinning as by default). */
const setup = (extra: Record<string, unknown> = {}): string =>
  policyConfig({ tool_pinning: 'tofu', tool_policy: POLICY, ...extra }, TOOLS);

describe('codemux approvals through the running gateway', () => {
  let g: RunningGateway;
  let configFile: string;
  const cli = (...args: string[]) => runCli([...args, '--config', configFile]);

  /** Polls `approvals list --status pending` until one is pending (the exec is held). */
  async function pendingOne(): Promise<Json> {
    const run = await settle(
      async () => {
        const listed = await cli('approvals', 'list', '--status', 'pending', '-o', 'json');
        expect(listed.code).toBe(0);
        return listed;
      },
      (listed) => listed.json.items.length > 0,
      30_000,
    );
    expect(run.json.items).toHaveLength(1);
    return run.json.items[0];
  }

  beforeAll(async () => {
    configFile = setup();
    g = await startGateway(configFile);
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it('approve: the held exec answers with the upstream result; a second decision exits 1 with the 409 message', async () => {
    const exec = g.rest('POST', '/api/v1/code/exec', { code: WIPE });
    const approval = await pendingOne();
    expect(approval).toMatchObject({
      status: 'pending',
      server: 'mut',
      tool: 'wipe',
      args: { path: '/tmp' },
      reason: 'annotated destructive',
      caller: 'admin',
    });
    const approve = await cli('approvals', 'approve', approval.id);
    expect(approve.stderr).toBe('');
    expect(approve.code).toBe(0);
    expect(approve.stdout).toBe(`approved ${approval.id}: mut.wipe (decided by admin via cli)\n`);
    const { json } = await exec;
    expect(json.value).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'wipe:{"path":"/tmp"}' }] },
    });
    const again = await cli('approvals', 'deny', approval.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(
        `^codemux: approval ${approval.id} was already approved by admin via cli at \\S+\\n$`,
      ),
    );
  }, 60_000);

  it('deny: the held call gets APPROVAL_DENIED naming the CLI; -o json prints the REST body', async () => {
    const exec = g.rest('POST', '/api/v1/code/exec', { code: WIPE });
    const approval = await pendingOne();
    const deny = await cli('approvals', 'deny', approval.id, '-o', 'json');
    expect(deny.code).toBe(0);
    expect(deny.json).toMatchObject({
      ok: true,
      approval: { id: approval.id, status: 'denied', decided_by: 'admin via cli' },
    });
    const { json } = await exec;
    expect(json.value).toEqual({
      ok: false,
      error: { code: 'APPROVAL_DENIED', message: 'mut.wipe was denied by admin via cli' },
    });
  }, 60_000);

  it('list: all recent approvals newest first as a table, --status filters, -o json is {items}', async () => {
    const all = await cli('approvals', 'list', '-o', 'json');
    expect(all.code).toBe(0);
    expect(all.json.items.map((a: Json) => a.status)).toEqual(['denied', 'approved']);
    const approved = await cli('approvals', 'list', '--status', 'approved', '-o', 'json');
    expect(approved.json.items.map((a: Json) => a.status)).toEqual(['approved']);
    const table = await cli('approvals', 'list');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual([
      'ID',
      'STATUS',
      'SERVER',
      'TOOL',
      'REASON',
      'CALLER',
      'CREATED',
      'EXPIRES / DECIDED BY',
    ]);
    expect(rows.map((r) => r.split(/\s{2,}/))).toEqual(
      all.json.items.map((a: Json) => [
        a.id,
        a.status,
        'mut',
        'wipe',
        'annotated destructive',
        'admin',
        a.created_at,
        'admin via cli',
      ]),
    );
    expect(await cli('approvals', 'list', '--status', 'pending')).toMatchObject({
      code: 0,
      stdout: 'no pending approvals\n',
    });
    expect((await cli('approvals', 'list', '--status', 'maybe')).code).toBe(2);
  }, 60_000);

  it('code exec through the gateway says on stderr which approval it waits for and how to decide it', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'code', 'exec', '--code', WIPE, '--config', configFile],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const approval = await pendingOne();
    await settle(
      async () => stderr.includes(approval.id) || child.exitCode !== null,
      (stop) => stop,
      30_000,
      50,
    );
    expect(stderr).toContain(
      `waiting for approval ${approval.id} of mut.wipe: run \`codemux approvals approve ${approval.id}\``,
    );
    expect(stderr).toContain('decide on the dashboard');
    expect((await cli('approvals', 'approve', approval.id)).code).toBe(0);
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout).ok).toBe(true);
  }, 60_000);

  it('an unknown id exits 1 with the gateway message', async () => {
    const run = await cli('approvals', 'approve', 'nosuch');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('codemux: no approval nosuch (codemux approvals list shows them)\n');
  });

  it('the banner and servers list count the tools under ask and deny', async () => {
    const line = '  tool policy            2 tools ask, 1 tool denied (tool_policy)';
    await settle(
      async () => g.output().includes(line),
      (shown) => shown,
      20_000,
      50,
    );
    const banner = g.output().split('\n');
    expect(banner.filter((l) => l.startsWith('  tool policy'))).toEqual([line]);
    // After the server's ready line.
    expect(banner.indexOf(line)).toBeGreaterThan(banner.findIndex((l) => l.includes(' ready (')));
    const table = await cli('servers', 'list');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/\ntool_policy: 2 tools ask, 1 tool denied\n$/);
    const json = await cli('servers', 'list', '-o', 'json');
    expect(json.json.policy).toEqual({ ask: 2, deny: 1 });
  });
});

it('approvals without a gateway exit 1 saying why and how to start it', async () => {
  const configFile = setup({ listen: '127.0.0.1:1' });
  for (const args of [['list'], ['approve', 'x'], ['deny', 'x']]) {
    const run = await runCli(['approvals', ...args, '--config', configFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'codemux: no codemux gateway answers at the config\'s "listen": approvals are held and decided by the running gateway (start it with `codemux serve`, or name it with --url)\n',
    );
  }
});

/** A program that calls wipe, then says what the server received (the call went out or not). */
const PROGRAM = `const r = ${WIPE}; ({ r, received: JSON.parse(call_tool('mut','received',{}).result.content[0].text) })`;

describe('standalone code exec', () => {
  it('denies at once when stdin is not a terminal, saying how to approve', async () => {
    const configFile = setup({ listen: '127.0.0.1:1' });
    const run = await runCli(['code', 'exec', '--config', configFile, '--code', PROGRAM]);
    expect(run.code).toBe(0);
    expect(run.json.value).toEqual({
      r: { ok: false, error: { code: 'APPROVAL_DENIED', message: NOT_A_TERMINAL } },
      received: {},
    });
    expect(run.stderr).toContain(
      'codemux: mut.wipe needs approval (annotated destructive) and stdin is not a terminal: denied',
    );
  }, 60_000);

  const hasScript = spawnSync('script', ['--version']).status === 0;

  /** Runs standalone code exec on a pseudo-terminal answering `answer`; stdout goes to a file. */
  function onTerminal(
    answer: string,
  ): Promise<{ screen: string; json: Json; code: number | null }> {
    const configFile = setup({ listen: '127.0.0.1:1' });
    const dir = path.dirname(configFile);
    const program = path.join(dir, 'program.js');
    const out = path.join(dir, 'out.json');
    fs.writeFileSync(program, PROGRAM);
    const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
    const command = [process.execPath, BIN, 'code', 'exec', '--config', configFile]
      .concat(['--file', program])
      .map(q)
      .join(' ');
    return new Promise((resolve, reject) => {
      const child = spawn('script', ['-qfec', `${command} > ${q(out)}`, '/dev/null'], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      child.stdout.on('data', (d) => (screen += d));
      child.stderr.on('data', (d) => (screen += d));
      // The terminal keeps the typed line until the prompt reads it.
      child.stdin.end(`${answer}\n`);
      const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ screen, code, json: JSON.parse(fs.readFileSync(out, 'utf8')) });
      });
    });
  }

  it.runIf(hasScript)(
    'on a terminal asks on stderr; y approves and the call goes out once',
    async () => {
      const run = await onTerminal('y');
      expect(run.code).toBe(0);
      expect(run.screen).toContain(
        'codemux: mut.wipe needs approval (tool_policy: annotated destructive)',
      );
      expect(run.screen).toContain('  arguments  {"path":"/tmp"}');
      expect(run.screen).toContain('Approve? [y/N]');
      expect(run.json.value).toEqual({
        r: { ok: true, result: { content: [{ type: 'text', text: 'wipe:{"path":"/tmp"}' }] } },
        received: { wipe: 1 },
      });
    },
    60_000,
  );

  it.runIf(hasScript)(
    'on a terminal, n denies: denied by terminal, never sent',
    async () => {
      const run = await onTerminal('n');
      expect(run.code).toBe(0);
      expect(run.screen).toContain('Approve? [y/N]');
      expect(run.json.value).toEqual({
        r: {
          ok: false,
          error: { code: 'APPROVAL_DENIED', message: 'mut.wipe was denied by terminal' },
        },
        received: {},
      });
    },
    60_000,
  );
});
