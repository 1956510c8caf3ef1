/** A new user's first hour: config mistakes named, CLI errors in one line, the gateway found or not. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { BIN, failingServer, runCli, SERVERS, until as untilHeld, writeConfig } from './helpers.ts';
import { freePort } from './http-servers.ts';

/** A stdio "server" that starts and never answers the MCP handshake. */
const HUNG = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
/** Generous on a loaded 2-core machine, far below the 30 s default connect timeout. */
const APPLY_DEADLINE_MS = 15_000;

const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);

/** `until` for probes that may throw while the gateway is still coming up (a refused fetch). */
const until = <T>(what: string, probe: () => Promise<T | undefined>, ms = APPLY_DEADLINE_MS) =>
  untilHeld(what, () => probe().catch(() => undefined), ms);

const serverStates = async (gw: RunningGateway) => {
  const { json } = await gw.rest('GET', '/api/v1/servers');
  return json.value.servers as Array<{ name: string; state: string; last_error?: string }>;
};

describe('config mistakes on every command', () => {
  it('names unknown keys on stderr with the nearest known key, and ignored ones once', async () => {
    const file = writeConfig({
      code_execution_timout_ms: 5,
      globalShortcut: 'Ctrl+Space',
      mcpServers: { gh: { command: 'gh-mcp', arg: ['x'], enabeld: true } },
    });
    for (const args of [
      ['servers', 'list'],
      ['code', 'scripts', 'list'],
      ['token', 'list'],
    ]) {
      const out = await runCli([...args, '--config', file]);
      expect(out.code, args.join(' ')).toBe(0);
      const lines = out.stderr.trim().split('\n');
      expect(lines).toEqual([
        `codemux: warning: ${file}: unknown key "code_execution_timout_ms" at the top level; did you mean \`code_execution_timeout_ms\`?`,
        `codemux: warning: ${file}: key "globalShortcut" at the top level is a Claude Desktop setting codemux does not use; ignored`,
        `codemux: warning: ${file}: unknown key "arg" in mcpServers.gh; did you mean \`args\`?`,
        `codemux: warning: ${file}: unknown key "enabeld" in mcpServers.gh; did you mean \`enabled\`?`,
      ]);
    }
  });

  // One row each: the config, the stderr it must print (exit 2, one line, no stack).
  it.each([
    [
      { mcpServers: { both: { command: 'x', url: 'http://127.0.0.1:1/mcp' } } },
      /server "both" \(mcpServers\.both\) has both "command" and "url"/,
    ],
    [
      { mcpServers: { gh: { command: 'x', env: { T: '${CODEMUX_TEST_UNSET_VAR}' } } } },
      /field "mcpServers\.gh\.env\.T" uses \$\{CODEMUX_TEST_UNSET_VAR\}, which is not set/,
    ],
  ])('refuses %j with exit 2', async (config, message) => {
    const out = await runCli(['servers', 'list', '--config', writeConfig(config)]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.each([
    ['--config', (f: string) => ['servers', 'list', '--config', f], {}],
    ['CODEMUX_CONFIG', () => ['servers', 'list'], { CODEMUX_CONFIG: 'X' }],
    ['--config on code exec', (f: string) => ['code', 'exec', '--code', '1', '--config', f], {}],
  ])(
    'a missing file named by %s exits 2 saying which and how to create it',
    async (_n, argv, env) => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-none-')), 'none.json');
      const vars = Object.fromEntries(Object.entries(env).map(([k]) => [k, file]));
      const out = await runCli(argv(file), { env: { ...process.env, ...vars } });
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`config file not found: ${file}`);
      expect(out.stderr).toContain(`echo '{"mcpServers": {}}' > ${file}`);
      noStack(out.stderr);
    },
  );
});

describe('unknown -o formats', () => {
  const file = writeConfig({ mcpServers: [] });
  it.each([
    ['servers', 'list'],
    ['code', 'scripts', 'list'],
    ['token', 'list'],
    ['token', 'create', '--name', 'n', '--servers', 'x'],
    ['code-tools', 'list'],
    ['activity', 'list'],
    ['activity', 'show', 'some-id'],
  ])('%s %s exits 2', async (...args) => {
    const out = await runCli([...args, '--config', file, '-o', 'xml']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("argument 'xml' is invalid");
  });
});

describe('misspelled servers and tools', () => {
  const file = writeConfig({ mcpServers: [SERVERS.everything, SERVERS.fixture] });
  // One row each: the program, the message it must produce.
  it.each([
    [
      "call_tool('everythin', 'echo', {})",
      'server not found: everythin; did you mean `everything`?',
    ],
    [
      "call_tool('everything', 'get_sum', {})",
      'tool not found: everything.get_sum; did you mean `get-sum`?',
    ],
    [
      "call_tools([{server: 'fixtur', tool: 'echo', args: {}}])[0]",
      'server not found: fixtur; did you mean `fixture`?',
    ],
    ['await tools.fixture.ecoh({})', 'tool not found: fixture.ecoh; did you mean `echo`?'],
    ["await tools['fixtures.echo']({})", 'server not found: fixtures; did you mean `fixture`?'],
  ])('%s', async (code, message) => {
    const out = await runCli(['code', 'exec', '--config', file, '--code', code]);
    expect(out.json.value.error.message).toBe(message);
  });
});

describe('the CLI and a gateway', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  });
  afterAll(async () => {
    await gw.stop();
  });

  it.each([
    ['another config with its own api_key', { api_key: 'not-the-key' }, {}, '"api_key" in '],
    ['a wrong CODEMUX_API_KEY', {}, { CODEMUX_API_KEY: 'wrong' }, 'CODEMUX_API_KEY'],
  ])(
    'a refused key (%s) is one line and exit 2 on every command',
    async (_n, extra, env, source) => {
      const listen = JSON.parse(fs.readFileSync(gw.configFile, 'utf8')).listen as string;
      const other = writeConfig({ listen, ...extra, mcpServers: [] });
      for (const args of [
        ['servers', 'list'],
        ['code', 'scripts', 'list'],
        ['code', 'exec', '--code', '1'],
      ]) {
        const out = await runCli([...args, '--config', other], { env: { ...process.env, ...env } });
        expect(out.code, args.join(' ')).toBe(2);
        const line = out.stderr.trim();
        expect(line).toMatch(
          new RegExp(
            `^codemux: the gateway at ${listen} refused the API key from .*; is it another config's gateway\\?$`,
          ),
        );
        expect(line).toContain(source);
      }
    },
  );

  it.each([
    ['servers', 'list', '-o', 'json'],
    ['code', 'scripts', 'list', '-o', 'json'],
    ['code', 'exec', '--code', '"ran on the gateway"'],
  ])('--url points %s %s at a gateway elsewhere', async (...args) => {
    const elsewhere = writeConfig({ listen: `127.0.0.1:${await freePort()}`, api_key: gw.key });
    const out = await runCli([...args, '--config', elsewhere, '--url', gw.url]);
    expect(out.code).toBe(0);
    if (args[0] === 'servers')
      expect(out.json.servers.map((s: { name: string }) => s.name)).toEqual(['fixture']);
    if (args[1] === 'exec') expect(out.json.value).toBe('ran on the gateway');
    // The same with --listen.
    const viaListen = await runCli([...args, '--config', elsewhere, '--listen', gw.url.slice(7)]);
    expect(viaListen.code).toBe(0);
  });

  it('--url naming nothing that answers exits 2 instead of running standalone', async () => {
    const out = await runCli([
      'servers',
      'list',
      '--config',
      gw.configFile,
      '--url',
      `http://127.0.0.1:${await freePort()}`,
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^codemux: no codemux gateway answers at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('a port already in use makes serve name the flag and the field that change it', async () => {
    const out = await runCli(['serve', '--config', gw.configFile]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('the address is already in use');
    expect(out.stderr).toContain(
      `change it with --listen HOST:PORT or the "listen" field of ${gw.configFile}`,
    );
    noStack(out.stderr);
  });
});

describe('catalog.* standalone and through the gateway', () => {
  it('gives the same output either way', async () => {
    const file = writeConfig({ mcpServers: [SERVERS.fixture, SERVERS.everything] });
    const program =
      "const ns = (await catalog.namespaces.list()).data; const hits = (await catalog.tools.search({query: 'echo'})).data.items.map((t) => t.qualifiedName ?? t.name); ({ns, hits})";
    const standalone = await runCli(['code', 'exec', '--config', file, '--code', program]);
    expect(standalone.code).toBe(0);
    const gw = await startGateway(file);
    try {
      await until('both servers ready', async () =>
        (await serverStates(gw)).every((s) => s.state === 'ready') ? true : undefined,
      );
      const viaGateway = await runCli(['code', 'exec', '--config', file, '--code', program]);
      expect(viaGateway.code).toBe(0);
      // Each run has its own activity record; the rest is byte for byte the same.
      const withoutId = (out: string) => out.replace(/,\n {2}"activity_id": "[0-9a-f]{24}"/, '');
      expect(withoutId(viaGateway.stdout)).toBe(withoutId(standalone.stdout));
      expect(JSON.stringify(standalone.json.value)).toContain('fixture');
      expect(JSON.stringify(standalone.json.value)).toContain('everything');
    } finally {
      await gw.stop();
    }
  });
});

describe('the gateway applies config edits', () => {
  it('applies added servers at once while a hung upstream is still connecting or being removed', async () => {
    const file = writeConfig({ connect_timeout_ms: 60_000, mcpServers: { hung: HUNG } });
    const gw = await startGateway(file);
    try {
      const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
      // Change the hung server (a restart of a connecting server) and add a working one.
      raw.mcpServers = {
        hung: { ...HUNG, args: [...HUNG.args, 'changed'] },
        fixture: { command: SERVERS.fixture.command, args: SERVERS.fixture.args },
      };
      fs.writeFileSync(file, JSON.stringify(raw));
      const states = await until('fixture ready', async () => {
        const list = await serverStates(gw);
        return list.find((s) => s.name === 'fixture')?.state === 'ready' ? list : undefined;
      });
      expect(states.map((s) => [s.name, s.state])).toEqual([
        ['hung', 'connecting'],
        ['fixture', 'ready'],
      ]);
    } finally {
      await gw.stop();
    }
  });

  it('fails a server at its connect_timeout_ms, naming the setting', async () => {
    const gw = await startGateway(
      writeConfig({ mcpServers: { hung: { ...HUNG, connect_timeout_ms: 300 } } }),
    );
    try {
      const hung = await until('hung failed', async () =>
        (await serverStates(gw)).find((s) => s.name === 'hung' && s.state === 'failed'),
      );
      expect(hung.last_error).toContain('no handshake within 300 ms (connect_timeout_ms');
    } finally {
      await gw.stop();
    }
  });

  it('prints one banner line per state change for a server that keeps failing', async () => {
    const bad = failingServer();
    const gw = await startGateway(writeConfig({ mcpServers: { bad: bad.entry } }));
    try {
      // A start per retry (backoff 250, 500, 1000 ms; the first attempt is two, with the version
      // probe): by the fifth, three retries have failed, each a state change the banner saw.
      await until('a fifth start', async () => (bad.starts() >= 5 ? true : undefined));
      const lines = gw
        .output()
        .split('\n')
        .filter((l) => /^\s+bad\s+failed/.test(l));
      expect(lines, gw.output()).toHaveLength(1);
    } finally {
      await gw.stop();
    }
  });

  it('picks up an edit made while the sandbox warms up', async () => {
    const port = await freePort();
    const file = writeConfig({ listen: `127.0.0.1:${port}`, mcpServers: {} });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', file], { stdio: 'ignore' });
    try {
      const url = `http://127.0.0.1:${port}`;
      await until('healthz', async () => ((await fetch(`${url}/healthz`)).ok ? true : undefined));
      const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, JSON.stringify({ ...raw, mcpServers: [SERVERS.fixture] }));
      const key = fs.readFileSync(path.join(path.dirname(file), 'data', 'api_key'), 'utf8').trim();
      await until('the edit applied', async () => {
        const response = await fetch(`${url}/api/v1/servers`, { headers: { 'x-api-key': key } });
        const body = (await response.json()) as { value: { servers: unknown[] } };
        return body.value.servers.length === 1 ? true : undefined;
      });
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('serve with no config at the default place says so, and picks the file up when created', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-home-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, CODEMUX_CONFIG: '' };
    delete env.CODEMUX_API_KEY;
    const child = spawn(process.execPath, [BIN, 'serve', '--listen', `127.0.0.1:${port}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      const file = path.join(home, '.codemux', 'mcp_config.json');
      await until('banner', async () => (out.includes('upstream servers') ? true : undefined));
      expect(out).toContain(`${file} (not found: no servers yet; create it and it is picked up)`);
      fs.writeFileSync(file, JSON.stringify({ mcpServers: [SERVERS.fixture] }));
      const key = fs.readFileSync(path.join(home, '.codemux', 'data', 'api_key'), 'utf8').trim();
      await until('the new file applied', async () => {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/servers`, {
          headers: { 'x-api-key': key },
        });
        const body = (await response.json()) as { value: { servers: unknown[] } };
        return body.value.servers.length === 1 ? true : undefined;
      });
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('logs', () => {
  it('are readable lines with --log-format text and JSON when stderr is not a terminal', async () => {
    const file = writeConfig({ mcpServers: [SERVERS.fixture] });
    const code = "console.log('x'); call_tool('fixture', 'echo', {})";
    const text = await runCli([
      'code',
      'exec',
      '--config',
      file,
      '--code',
      code,
      '--log-level',
      'debug',
      '--log-format',
      'text',
    ]);
    expect(text.stderr).toMatch(/^\d\d:\d\d:\d\d DEBUG /m);
    const json = await runCli([
      'code',
      'exec',
      '--config',
      file,
      '--code',
      code,
      '--log-level',
      'debug',
    ]);
    const first = json.stderr.trim().split('\n')[0]!;
    expect(JSON.parse(first)).toHaveProperty('level', 20);
  });

  // One row each: the log level asked for, whether the stack is printed.
  it.each([
    ['info', false],
    ['debug', true],
  ])('an unexpected error at log level %s is one line (stack: %s)', async (level, stack) => {
    // A data_dir under a regular file cannot be created: the token store fails in an unplanned way
    // (`token create`: `token list` opens no database that does not exist yet).
    const file = writeConfig({ data_dir: 'mcp_config.json/data' });
    const out = await runCli(['token', 'create', '--name', 'x', '--config', file], {
      env: { ...process.env, CODEMUX_LOG_LEVEL: level },
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^codemux: unexpected error: ENOTDIR.*mcp_config\.json\/data/);
    if (stack) expect(out.stderr).toMatch(/\n\s+at /);
    else expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('an invalid --log-level exits 2 without a stack', async () => {
    const out = await runCli(['code', 'exec', '--code', '1', '--log-level', 'loud']);
    expect(out.code).toBe(2);
    noStack(out.stderr);
  });
});
