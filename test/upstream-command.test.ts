/**
 * Issue 33, item 18: a stdio server whose `command` does not exist reads "command not found: X
 * (server S)" everywhere (servers list, last error, history, log), with no `spawn X ENOENT`, no
 * stack and no advice about timeouts; it is retried with backoff, logged once as a warning.
 * And the Add-server dialog says how Arguments are read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { runCli, until, writeConfig } from './helpers.ts';

const NOT_FOUND = 'command not found: no-such-command-4d2 (server ghost)';

describe('a server whose command does not exist', () => {
  let g: RunningGateway;
  let configFile: string;
  beforeAll(async () => {
    configFile = writeConfig({
      mcpServers: [{ name: 'ghost', command: 'no-such-command-4d2', args: [] }],
    });
    g = await startGateway(configFile);
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('says "command not found: X (server S)", retries with backoff and warns once', async () => {
    // Three failed attempts (the first and two retries) are in its history.
    const detail = await until(
      'three failed starts',
      async () => {
        const answer = await g.rest('GET', '/api/v1/servers/ghost');
        const failed = (answer.json.value?.history ?? []).filter(
          (e: { event: string }) => e.event === 'failed',
        );
        return failed.length >= 3 ? answer.json.value : undefined;
      },
      20_000,
    );
    const failures = detail.history.filter((e: { event: string }) => e.event === 'failed');
    for (const e of failures) expect(e.detail).toBe(NOT_FOUND);
    // Backoff: a retry starts 250 ms after the first failure, the next 500 ms after the second
    // (lower bounds only: a timer never fires early, a busy machine only makes the gaps longer).
    const at = failures.map((e: { at: string }) => Date.parse(e.at));
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(240);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(490);
    const list = await g.rest('GET', '/api/v1/servers');
    const ghost = list.json.value.servers.find((s: { name: string }) => s.name === 'ghost');
    expect(ghost).toMatchObject({ state: 'failed', last_error: NOT_FOUND });
    const cli = await runCli(['servers', 'list', '--config', configFile]);
    expect(cli.stdout).toContain(NOT_FOUND);
    const output = g.output();
    expect(output).not.toMatch(/ENOENT|spawn no-such|connect_timeout_ms|raise it|\n\s+at /);
    const warnings = output.split('\n').filter((l) => l.includes('"level":40'));
    expect(warnings.filter((l) => l.includes(NOT_FOUND))).toHaveLength(1);
  });

  it('the Add-server dialog says Arguments are one per line, not split at spaces', async () => {
    // /ui/servers?apikey=KEY starts a session (a cookie) and redirects to the page.
    const signIn = await fetch(`${g.url}/ui/servers?apikey=${g.key}`, { redirect: 'manual' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${g.url}/ui/servers`, { headers: { cookie } });
    const html = await page.text();
    expect(html).toContain('Arguments, one per line');
    expect(html).toContain('a line is not split at spaces');
  });
});
