/**
 * @module The README against reality: the banner it quotes, the tool-description figures,
 * the Inspector commands (run as printed), its docs links, and every config field and CLI
 * flag documented in docs/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userConfigSchema, userServerSchema } from '../src/config/schema.ts';
import { BIN, exampleCopy, ROOT, settle } from './helpers.ts';
import { freePort } from './http-servers.ts';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const SERVER_COUNT = 3;
/**
 * Docs that another branch adds (docs/benchmarks.md and docs/engine.md come with the engine
 * work); the README links them already. Empty this list once they are merged.
 */

/** The fenced code blocks of a markdown text. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The README and each docs/*.md, as [name, text]. */
function docsAndReadme(): Array<[string, string]> {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  return [
    ['README.md', README],
    ...docs.map((f): [string, string] => [
      `docs/${f}`,
      fs.readFileSync(path.join(ROOT, 'docs', f), 'utf8'),
    ]),
  ];
}

/** Splits a one-line shell command into words (single quotes only, as the README writes them). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function run(
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: example.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let port = 0;
let gateway: ChildProcess | undefined;
let banner = '';
// The example as shipped, run in a copy: its API key and activity never land in the clone.
const example = exampleCopy();

beforeAll(async () => {
  // `npm start` on a free port: the example config as shipped, from the copy's root.
  port = await freePort();
  const env = { ...process.env };
  delete env.CODEMUX_API_KEY;
  gateway = spawn(
    process.execPath,
    [BIN, 'serve', '--config', 'examples/mcp_config.json', '--listen', `127.0.0.1:${port}`],
    { cwd: example.root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  gateway.stdout!.on('data', (d) => (banner += d));
  gateway.stderr!.on('data', (d) => (stderr += d));
  const settled = () =>
    (banner.match(/^ {4}\S+ +(ready \(|failed:)/gm) ?? []).length >= SERVER_COUNT;
  const done = await settle(
    async () => settled() || gateway!.exitCode !== null,
    (stop) => stop,
    90_000,
  );
  if (!done || !settled()) throw new Error(`codemux serve did not settle:\n${banner}\n${stderr}`);
}, 120_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  example.remove();
});

describe('the README against reality', () => {
  it('quotes the banner of npm start line by line (only the port and paths differ)', () => {
    const quoted = codeBlocks(README).find((b) => b.startsWith('codemux 0.1.0 listening on'));
    expect(quoted, 'the README quotes the banner').toBeDefined();
    const normalize = (text: string) =>
      text
        .replaceAll(`127.0.0.1:${port}`, '127.0.0.1:8080')
        .replaceAll(example.root, '/path/to/codemux')
        .split('\n')
        .filter((l) => l.trim() !== '');
    const real = normalize(banner);
    const readme = normalize(quoted!);
    const header = (lines: string[]) => lines.filter((l) => !l.startsWith('    '));
    expect(header(readme)).toEqual(header(real));
    // Server lines: the settled lines are the same; a "connecting" line the gateway printed
    // is one the README shows (a fast server may be ready before the banner).
    const servers = (lines: string[]) => lines.filter((l) => l.startsWith('    '));
    const settled = (lines: string[]) =>
      servers(lines)
        .filter((l) => !l.endsWith(' connecting'))
        .sort();
    expect(settled(readme)).toEqual(settled(real));
    for (const line of servers(real).filter((l) => l.endsWith(' connecting')))
      expect(readme).toContain(line);
  });

  it("quotes code_execution's description figures with the example config", async () => {
    const client = new Client({ name: 'readme-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'code_execution')!;
      // As test/catalog.test.ts counts: 4 characters a token, rounded.
      const tokens = (text: string) => Math.round(text.length / 4);
      const upstreamTools = (banner.match(/ready \((\d+) tools\)/g) ?? [])
        .map((m) => Number(/\d+/.exec(m)![0]))
        .reduce((a, b) => a + b, 0);
      const figures =
        /With the example config \((\d+) upstream\s+tools\) the description is ([\d,]+) characters, about ([\d,]+) tokens[\s\S]*?whole tool definition with its input schema is about ([\d,]+) tokens/.exec(
          README,
        );
      expect(figures, 'the README quotes the description figures').not.toBeNull();
      const [, count, chars, descriptionTokens, definitionTokens] = figures!.map((f) =>
        Number(f.replaceAll(',', '')),
      );
      expect({
        count,
        chars,
        descriptionTokens,
        definitionTokens,
      }).toEqual({
        count: upstreamTools,
        chars: tool.description!.length,
        descriptionTokens: tokens(tool.description!),
        definitionTokens: tokens(JSON.stringify(tool)),
      });
    } finally {
      await client.close();
    }
  });

  it('prints Inspector commands that work as printed, over HTTP, stdio and on code mode', async () => {
    const commands = README.split('\n').filter((l) =>
      l.startsWith('npx @modelcontextprotocol/inspector --cli '),
    );
    expect(commands).toHaveLength(3);
    const [http, stdio, codemode] = await Promise.all(
      commands.map((line) => {
        // As printed, except that npx must not download anything and the port is the test's.
        const words = shellWords(line.replace('127.0.0.1:8080', `127.0.0.1:${port}`));
        return run('npx', ['--no-install', ...words.slice(1)]);
      }),
    );
    expect(http!.code, http!.stderr).toBe(0);
    expect(JSON.parse(http!.stdout).structuredContent).toMatchObject({ ok: true, value: 42 });
    expect(stdio!.code, stdio!.stderr).toBe(0);
    expect(JSON.parse(stdio!.stdout).tools[0].name).toBe('code_execution');
    expect(codemode!.code, codemode!.stderr).toBe(0);
    expect(JSON.parse(codemode!.stdout).tools.map((t: { name: string }) => t.name)).toEqual([
      'execute',
    ]);
  }, 120_000);

  it('prints codemux commands as node bin/codemux.js, never npx codemux (npx installs the clone first)', () => {
    // npm 10+ runs `npx codemux` inside this package by installing the clone into its cache
    // (running `prepare`, a full build): many silent seconds on a fresh clone.
    const invocations: string[] = [];
    for (const [file, text] of docsAndReadme()) {
      const code = [
        ...codeBlocks(text).flatMap((b) => b.split('\n')),
        ...[...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!),
      ];
      for (const line of code)
        if (/^\s*(npx|npm exec|npm x)( --?[a-z-]+)* codemux\s+\S/.test(line))
          invocations.push(`${file}: ${line.trim()}`);
    }
    expect(invocations).toEqual([]);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ codemux: 'bin/codemux.js' });
  });

  it('prints only node bin/codemux.js commands that exist', async () => {
    const commands = new Set<string>();
    for (const block of codeBlocks(README))
      for (const m of block.matchAll(/^node bin\/codemux\.js((?: [a-z][a-z-]*)+)/gm))
        commands.add(m[1]!.trim());
    expect(commands.size).toBeGreaterThan(5);
    for (const command of commands) {
      const help = await run(process.execPath, [BIN, ...command.split(' '), '--help']);
      expect(help.code, `${command}: ${help.stderr}`).toBe(0);
      expect(help.stdout, command).toMatch(/^Usage: codemux /);
    }
  }, 60_000);

  it('links only docs that exist, in the README and between docs', () => {
    const missing: string[] = [];
    const check = (file: string, text: string, prefix: string) => {
      for (const m of text.matchAll(/\]\(([a-z0-9-]+\.md|docs\/[a-z0-9-]+\.md)(#[^)]*)?\)/g)) {
        const target = path.normalize(path.join(prefix, m[1]!));
        if (!fs.existsSync(path.join(ROOT, target))) missing.push(`${file} -> ${m[1]}`);
      }
    };
    check('README.md', README, '');
    for (const doc of fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')))
      check(`docs/${doc}`, fs.readFileSync(path.join(ROOT, 'docs', doc), 'utf8'), 'docs');
    expect(missing).toEqual([]);
  });
});

describe('docs/ against the code', () => {
  const configuration = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const cli = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  const fields = [
    ...Object.keys(userConfigSchema.shape),
    ...Object.keys(userServerSchema.shape),
    'search.max_results',
    'execution_timeout_ms',
    'memory_limit_bytes',
    'max_host_calls',
    'max_concurrent_executions',
    'max_concurrent_tool_calls',
    'max_output_bytes',
  ];

  it.each(fields)('config field %s is in docs/configuration.md and the README', (field) => {
    expect(configuration).toContain(field);
    expect(README).toContain(field);
  });

  it('documents every flag of every command in docs/cli.md', async () => {
    // Walk `codemux --help` down to the leaf commands and collect their long flags.
    const help = async (words: string[]) =>
      (await run(process.execPath, [BIN, ...words, '--help'])).stdout;
    const leaves: string[][] = [];
    const walk = async (words: string[]) => {
      const text = await help(words);
      const commands = /Commands:\n([\s\S]*)$/.exec(text)?.[1];
      const names = commands
        ? [...commands.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!).filter((n) => n !== 'help')
        : [];
      if (names.length === 0) leaves.push(words);
      for (const name of names) await walk([...words, name]);
    };
    await walk([]);
    expect(leaves.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const words of leaves) {
      for (const m of (await help(words)).matchAll(/(--[a-z][a-z-]+)/g)) {
        const flag = m[1]!;
        // `-o` stands for `--output` in docs/cli.md.
        if (flag === '--help' || cli.includes(flag) || (flag === '--output' && cli.includes('-o ')))
          continue;
        missing.push(`codemux ${words.join(' ')} ${flag}`);
      }
      if (!cli.includes(`codemux ${words.join(' ')}`)) missing.push(`codemux ${words.join(' ')}`);
    }
    expect([...new Set(missing)]).toEqual([]);
  }, 120_000);
});
