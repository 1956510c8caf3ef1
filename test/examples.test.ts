/**
 * What the example servers write is the user's: it never breaks the project's checks, and it
 * lands in the example's own directories (files/, data/), never in node_modules.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigFile } from '../src/config/config-file.ts';
import { ROOT, runCli } from './helpers.ts';
import { freePort } from './http-servers.ts';

const EXAMPLES = path.join(ROOT, 'examples');

function run(
  command: string,
  args: string[],
  cwd = ROOT,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('files the filesystem server wrote into examples/files/', () => {
  it('break neither the lint nor the type-check', async () => {
    // Content biome refuses (a debugger statement, var, bad format; JSON that does not parse).
    const written = [
      ['lint-breaker.js', 'var x = 1;;debugger\nif (x == 2) {  }\n'],
      ['lint-breaker.ts', 'const y: number = "not a number";;debugger\n'],
      ['lint-breaker.json', '{"unclosed": [1, 2,\n'],
    ].map(([name, content]) => {
      const file = path.join(EXAMPLES, 'files', `${process.pid}-${name}`);
      fs.writeFileSync(file, content!);
      return file;
    });
    try {
      const lint = await run(process.execPath, [
        path.join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'),
        'check',
        '.',
      ]);
      expect(lint.code, lint.output).toBe(0);
      // tsc's file list (no type-check needed to know what it would read).
      const tsc = await run(process.execPath, [
        path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        'tsconfig.json',
        '--showConfig',
      ]);
      expect(tsc.code, tsc.output).toBe(0);
      const files = (JSON.parse(tsc.output) as { files: string[] }).files;
      expect(files.length).toBeGreaterThan(10);
      expect(files.filter((f) => f.includes('examples/'))).toEqual([]);
    } finally {
      for (const file of written) fs.rmSync(file, { force: true });
    }
  }, 120_000);
});

describe("the example config's memory server", () => {
  it('keeps its memory in the data dir next to the config', async () => {
    // A copy of the example as shipped, beside a node_modules like the clone's.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-example-'));
    try {
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
      fs.mkdirSync(path.join(root, 'examples'));
      const config = path.join(root, 'examples', 'mcp_config.json');
      // As shipped, but on a port no gateway holds: `code exec` must run standalone here.
      const shipped = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'mcp_config.json'), 'utf8'));
      fs.writeFileSync(
        config,
        JSON.stringify({ ...shipped, listen: `127.0.0.1:${await freePort()}` }),
      );
      const env = { ...process.env };
      delete env.CODEMUX_API_KEY;
      const entity = `example-test-${process.pid}`;
      const code = `call_tool('memory', 'create_entities', {entities: [{name: '${entity}', entityType: 'test', observations: ['kept']}]}).ok`;
      // Standalone: only the memory server is started.
      const out = await runCli(['code', 'exec', '--config', config, '--code', code], {
        timeoutMs: 60_000,
        env,
      });
      expect(out.code, out.stderr).toBe(0);
      expect(out.json).toMatchObject({ ok: true, value: true });
      const memory = fs.readFileSync(path.join(root, 'examples', 'data', 'memory.jsonl'), 'utf8');
      expect(memory).toContain(entity);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('the example config after the dashboard edited it', () => {
  it('keeps the lint green', async () => {
    // The project's lint config over a copy of the example, edited as the dashboard edits it.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-lint-'));
    try {
      fs.copyFileSync(path.join(ROOT, 'biome.json'), path.join(root, 'biome.json'));
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
      fs.mkdirSync(path.join(root, 'examples'));
      const config = path.join(root, 'examples', 'mcp_config.json');
      fs.copyFileSync(path.join(EXAMPLES, 'mcp_config.json'), config);
      const file = new ConfigFile(config);
      await file.add({ name: 'fetch', command: 'npx', args: ['-y', 'mcp-fetch'], env: { A: 'b' } });
      await file.update('memory', { disabled_tools: ['read_graph'] });
      expect(fs.readFileSync(config, 'utf8')).toContain('"read_graph"');
      const lint = await run(
        process.execPath,
        [path.join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'), 'check', '.'],
        root,
      );
      expect(lint.code, lint.output).toBe(0);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
