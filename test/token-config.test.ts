/**
 * `codemux token` without --config: every line names the config file it used, and a
 * read-only command (list, revoke) creates no database, nor the data dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, SERVERS, writeConfig } from './helpers.ts';

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-home-'));
});
afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

/** The environment of a user with HOME `home`, no CODEMUX_* variables, plus `extra`. */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...extra };
  for (const name of ['CODEMUX_API_KEY', 'CODEMUX_DATABASE_URL']) delete env[name];
  if (!('CODEMUX_CONFIG' in extra)) delete env.CODEMUX_CONFIG;
  return env;
}

/** Every file and directory under `dir`, relative. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).sort();
}

describe('codemux token at the default config place, which does not exist', () => {
  it('names the file in each message and creates nothing for list and revoke', async () => {
    const env = environment();
    const named = `(config: ${path.join(home, '.codemux', 'mcp_config.json')}, which does not exist)`;
    const list = await runCli(['token', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^NAME +SERVERS/);
    expect(list.stderr).toBe(`codemux: 0 agent tokens ${named}\n`);
    const json = await runCli(['token', 'list', '-o', 'json'], { env });
    expect(json.json).toEqual({ tokens: [] });
    const revoke = await runCli(['token', 'revoke', 'ci'], { env });
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toBe(`codemux: no token named "ci" ${named}\n`);
    expect(tree(home)).toEqual([]);
    const create = await runCli(['token', 'create', '--name', 'ci', '--servers', 'fs'], { env });
    expect(create.code).toBe(2);
    expect(create.stderr).toBe(`codemux: unknown server 'fs'; the config has: none ${named}\n`);
  });
});

describe('codemux token with the config named by CODEMUX_CONFIG', () => {
  it('names the file in each message', async () => {
    const file = writeConfig({ mcpServers: [SERVERS.fixture] });
    try {
      const env = environment({ CODEMUX_CONFIG: file });
      const named = `(config: ${file}, from CODEMUX_CONFIG)`;
      const create = await runCli(['token', 'create', '--name', 'ci', '--servers', 'fixture'], {
        env,
      });
      expect(create.code, create.stderr).toBe(0);
      expect(create.stderr).toContain(`Send it as X-API-Key or Authorization: Bearer. ${named}\n`);
      const list = await runCli(['token', 'list'], { env });
      expect(list.stdout).toMatch(/^ci +fixture/m);
      expect(list.stderr).toBe(`codemux: 1 agent token ${named}\n`);
      const revoke = await runCli(['token', 'revoke', 'ci'], { env });
      expect(revoke.stdout).toBe(`revoked "ci" ${named}\n`);
      // With --config, the user named the file: no note.
      const flagged = await runCli(['token', 'list', '--config', file], { env });
      expect(flagged.stderr).toBe('');
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
