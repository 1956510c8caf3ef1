/** The config as the CLI reports it: every mistake of a bad file at once, `${VAR}` expanded or refused. */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config text with ${VAR} references
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startGateway } from './gateway.ts';
import { runCli, SERVERS, until, writeConfig } from './helpers.ts';

/** The environment without the variables these tests name (and without CODEMUX_API_KEY). */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.CODEMUX_API_KEY;
  for (const name of ['CODEMUX_TEST_ADMIN_KEY', 'CODEMUX_TEST_RELOAD_UNSET']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** Waits for a JSON log line of `output()` whose message includes `text`; its message. */
async function logged(output: () => string, text: string): Promise<string> {
  const find = async () => {
    for (const line of output().split('\n')) {
      try {
        const msg = (JSON.parse(line) as { msg?: string }).msg;
        if (msg?.includes(text)) return msg;
      } catch {}
    }
    return undefined;
  };
  return until(`a log line with "${text}"`, find, 20_000).catch(() => {
    throw new Error(`no log line with "${text}" in:\n${output()}`);
  });
}

describe('a config with an unknown key and an invalid value', () => {
  // One row each: the config, the warnings it must print before the error line.
  it.each([
    [
      'a top-level range error',
      { code_execution_timout_ms: 5, code_execution_pool_size: 500, mcpServers: {} },
      [
        /unknown key "code_execution_timout_ms" at the top level; did you mean `code_execution_timeout_ms`\?/,
      ],
      /field "code_execution_pool_size" must be an integer from 1 to 100$/,
    ],
    [
      "a server's range error, with keys misspelt at both levels",
      {
        code_execution_timout_ms: 5,
        mcpServers: { gh: { command: 'gh-mcp', arg: ['x'], queue_size: -1 } },
      },
      [
        /unknown key "code_execution_timout_ms" at the top level; did you mean `code_execution_timeout_ms`\?/,
        /unknown key "arg" in mcpServers\.gh; did you mean `args`\?/,
      ],
      /field "mcpServers\.gh\.queue_size" must be an integer from 0 to 100000$/,
    ],
  ])('reports both for %s (exit 2)', async (_what, config, warnings, error) => {
    const file = writeConfig(config);
    for (const command of [['servers', 'list'], ['serve']]) {
      const out = await runCli([...command, '--config', file]);
      expect(out.code, command.join(' ')).toBe(2);
      const lines = out.stderr.trim().split('\n');
      expect(lines, out.stderr).toHaveLength(warnings.length + 1);
      for (const [i, warning] of warnings.entries()) {
        expect(lines[i]).toMatch(`codemux: warning: ${file}: `);
        expect(lines[i]).toMatch(warning);
      }
      expect(lines.at(-1)).toMatch(`codemux: ${file}: `);
      expect(lines.at(-1)).toMatch(error);
    }
  });
});

describe('"api_key": "${VAR}" (docs/scale-out.md)', () => {
  it('exits 2 naming the field and the variable when the variable is unset', async () => {
    const file = writeConfig({ api_key: '${CODEMUX_TEST_ADMIN_KEY}', mcpServers: [] });
    const out = await runCli(['serve', '--config', file], { env: environment() });
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(
      `codemux: ${file}: field "api_key" uses \${CODEMUX_TEST_ADMIN_KEY}, which is not set in the environment; set CODEMUX_TEST_ADMIN_KEY or write \${CODEMUX_TEST_ADMIN_KEY:-default}`,
    );
  });

  it('uses the variable as the admin key over REST, and a reload expands the same way', async () => {
    const key = 'admin-key-from-the-environment';
    const file = writeConfig({ api_key: '${CODEMUX_TEST_ADMIN_KEY}', mcpServers: [] });
    const gateway = await startGateway(file, {
      env: environment({ CODEMUX_TEST_ADMIN_KEY: key }),
      key,
    });
    try {
      expect((await gateway.rest('GET', '/api/v1/servers')).status).toBe(200);
      const literal = { 'x-api-key': '${CODEMUX_TEST_ADMIN_KEY}' };
      expect((await gateway.rest('GET', '/api/v1/servers', undefined, literal)).status).toBe(401);

      // An edit whose secret names an unset variable is refused; the running config stays.
      const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      const edit = {
        ...raw,
        api_key: '${CODEMUX_TEST_RELOAD_UNSET}',
        mcpServers: [SERVERS.fixture],
      };
      fs.writeFileSync(file, JSON.stringify(edit));
      const message = await logged(gateway.output, 'config edit ignored');
      expect(message).toContain(
        'field "api_key" uses ${CODEMUX_TEST_RELOAD_UNSET}, which is not set in the environment',
      );
      const { json } = await gateway.rest('GET', '/api/v1/servers');
      expect(json.value.servers).toEqual([]);
    } finally {
      await gateway.stop();
    }
  });
});
