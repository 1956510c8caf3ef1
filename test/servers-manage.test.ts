/**
 * Servers managed over REST, written back to the config file (issue 24, item 1): add, edit,
 * switch, restart, delete; per-tool `disabled_tools`; the state history and the masked stderr;
 * and edits racing hand edits of the file. A real `codemux serve` with real upstreams.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { FIXTURE_SERVER, SERVERS, settle, writeConfig } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = Record<string, any>;

const SECRET = 'fixture-secret-4711';
let g: RunningGateway;

const fileDoc = (): Json => JSON.parse(fs.readFileSync(g.configFile, 'utf8'));
const entryOf = (name: string): Json | undefined =>
  (fileDoc().mcpServers as Json[]).find((s) => s.name === name);

const until = <T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> =>
  settle(read, ok);

const serverState = async (name: string) =>
  (await g.rest('GET', `/api/v1/servers/${name}`)).json.value?.server?.state;

/** Waits (up to 15 s) for `name` to be ready, and fails the test if it is not. */
async function expectReady(name: string): Promise<void> {
  expect(
    await until(
      () => serverState(name),
      (s) => s === 'ready',
    ),
  ).toBe('ready');
}

async function run(code: string): Promise<Json> {
  return (await g.rest('POST', '/api/v1/code/exec', { code })).json;
}

beforeAll(async () => {
  const file = writeConfig({ mcpServers: [SERVERS.memory], my_own_key: { kept: true } });
  g = await startGateway(file);
  await waitUntilReady(g);
}, 60_000);

afterAll(async () => {
  await g?.stop();
});

describe('servers managed over REST, written to the config file', () => {
  it('adds a server: it is in the file (the other keys kept) and connects', async () => {
    const added = await g.rest('POST', '/api/v1/servers', {
      name: 'fx',
      command: process.execPath,
      args: [FIXTURE_SERVER],
      env: { FIXTURE_STDERR: SECRET },
    });
    expect(added.status).toBe(201);
    expect(added.json.value.entry.env).toEqual({ FIXTURE_STDERR: '[hidden]' });
    expect(entryOf('fx')).toMatchObject({
      command: process.execPath,
      env: { FIXTURE_STDERR: SECRET },
    });
    expect(fileDoc().my_own_key).toEqual({ kept: true });
    expect(entryOf('memory')).toBeDefined();
    await expectReady('fx');
  });

  it('shows the stderr with the environment values masked, and the state history', async () => {
    const lines = await until(
      async () => (await g.rest('GET', '/api/v1/servers/fx/stderr')).json.value.lines as string[],
      (l) => l.length > 0,
    );
    expect(lines.join('\n')).toContain('FIXTURE_STDERR=[redacted]');
    expect(lines.join('\n')).not.toContain(SECRET);
    const detail = (await g.rest('GET', '/api/v1/servers/fx')).json.value;
    expect(detail.history.map((e: Json) => e.event)).toEqual(['added', 'connecting', 'ready']);
    expect(detail.entry.env).toEqual({ FIXTURE_STDERR: '[hidden]' });
  });

  it('refuses a change that would make the file invalid, naming the field, and writes nothing', async () => {
    const before = fs.readFileSync(g.configFile, 'utf8');
    const noCommand = await g.rest('POST', '/api/v1/servers', { name: 'nothing' });
    expect(noCommand.status).toBe(400);
    expect(noCommand.json.error).toMatchObject({ code: 'INVALID_SERVER' });
    expect(noCommand.json.error.message).toMatch(/needs "command".*or "url"/);
    const badUrl = await g.rest('PATCH', '/api/v1/servers/fx', { call_timeout_ms: -5 });
    expect(badUrl.status).toBe(400);
    expect(badUrl.json.error.field).toMatch(/call_timeout_ms$/);
    const typo = await g.rest('PATCH', '/api/v1/servers/fx', { comand: 'x' });
    expect(typo.json.error).toMatchObject({ code: 'INVALID_SERVER', field: 'comand' });
    const taken = await g.rest('POST', '/api/v1/servers', { name: 'fx', command: 'x' });
    expect(taken.status).toBe(409);
    const rename = await g.rest('PATCH', '/api/v1/servers/fx', { name: 'other' });
    expect(rename.json.error.field).toBe('name');
    expect((await g.rest('PATCH', '/api/v1/servers/nope', { enabled: true })).status).toBe(404);
    expect(fs.readFileSync(g.configFile, 'utf8')).toBe(before);
  });

  it('disables one tool: catalog, tools.* and call_tool treat it as unknown, saying it is disabled', async () => {
    const off = await g.rest('POST', '/api/v1/servers/fx/tools/echo/disable');
    expect(off.status).toBe(200);
    expect(entryOf('fx')!.disabled_tools).toEqual(['echo']);
    // The connection stays: only the lists change.
    expect(off.json.value.server.state).toBe('ready');
    const listed = await run(
      "return (await catalog.tools.list({namespace:'fx'})).data.items.map((t) => t.name)",
    );
    expect(listed.value).not.toContain('echo');
    expect(listed.value).toContain('sleep');
    // tools.* answers it as it answers a tool the server does not list.
    const proxy = await run(
      "return [await tools.fx.echo({message: 'hi'}), await tools.fx.nope({})]",
    );
    expect(proxy.value[0].error.code).toBe(proxy.value[1].error.code);
    expect(proxy.value[0].error).toMatchObject({ code: 'tool_not_found' });
    expect(proxy.value[0].error.message).toContain('disabled_tools');
    const called = await run("return await call_tool('fx', 'echo', {message: 'hi'})");
    expect(called.value.ok).toBe(false);
    expect(called.value.error.message).toMatch(/^tool not found: fx\.echo is disabled/);
    const page = await g.rest('GET', '/api/v1/tools/fx/echo');
    expect(page.status).toBe(404);
    expect(page.json.error.message).toContain('fx.echo is disabled');
    const tools = (await g.rest('GET', '/api/v1/servers/fx/tools')).json.value.tools as Json[];
    expect(tools.find((t) => t.name === 'echo')).toMatchObject({ disabled: true });
    await g.rest('POST', '/api/v1/servers/fx/tools/echo/enable');
    expect(entryOf('fx')).not.toHaveProperty('disabled_tools');
    const back = await run("return (await call_tool('fx', 'echo', {message: 'hi'})).ok");
    expect(back.value).toBe(true);
  });

  it('disables, enables, quarantines and unquarantines a server through its config fields', async () => {
    const disabled = await g.rest('POST', '/api/v1/servers/fx/disable');
    expect(disabled.json.value.server.state).toBe('disabled');
    expect(entryOf('fx')!.enabled).toBe(false);
    const restartDisabled = await g.rest('POST', '/api/v1/servers/fx/restart');
    expect(restartDisabled.status).toBe(409);
    expect(restartDisabled.json.error.message).toContain('enable it first');
    await g.rest('POST', '/api/v1/servers/fx/enable');
    expect(entryOf('fx')).not.toHaveProperty('enabled');
    await expectReady('fx');
    const quarantined = await g.rest('POST', '/api/v1/servers/fx/quarantine');
    expect(quarantined.json.value.server.state).toBe('quarantined');
    expect(entryOf('fx')!.quarantined).toBe(true);
    await g.rest('POST', '/api/v1/servers/fx/unquarantine');
    await expectReady('fx');
  });

  it('restarts a server: a new process, recorded in its history', async () => {
    const restarted = await g.rest('POST', '/api/v1/servers/fx/restart');
    expect(restarted.status).toBe(200);
    await expectReady('fx');
    const events = (await g.rest('GET', '/api/v1/servers/fx')).json.value.history.map(
      (e: Json) => e.event,
    );
    expect(events.slice(-3)).toEqual(['restarted', 'connecting', 'ready']);
    expect(events.every((e: string) => typeof e === 'string')).toBe(true);
  });

  it('keeps a hand value behind [hidden] and replaces what is given', async () => {
    await g.rest('PATCH', '/api/v1/servers/fx', {
      env: { FIXTURE_STDERR: '[hidden]', EXTRA: 'one' },
    });
    expect(entryOf('fx')!.env).toEqual({ FIXTURE_STDERR: SECRET, EXTRA: 'one' });
    await g.rest('PATCH', '/api/v1/servers/fx', { env: null });
    expect(entryOf('fx')).not.toHaveProperty('env');
  });

  it('never loses a hand edit: an unrelated one stays, one to the same server is reported', async () => {
    const { revision } = (await g.rest('GET', '/api/v1/servers/fx')).json.value;
    // By hand, after the page read the server: a new top-level key and a change to fx itself.
    const doc = fileDoc();
    doc.by_hand = 1;
    doc.mcpServers.find((s: Json) => s.name === 'fx').call_timeout_ms = 5000;
    doc.mcpServers.find((s: Json) => s.name === 'fx').queue_size = 3;
    fs.writeFileSync(g.configFile, JSON.stringify(doc, null, 2));
    const saved = await g.rest(
      'PATCH',
      '/api/v1/servers/fx',
      { call_timeout_ms: 9000 },
      { 'x-api-key': g.key, 'content-type': 'application/json', 'if-match': `"${revision}"` },
    );
    expect(saved.status).toBe(200);
    // The later write wins its field; the hand edit it replaced is reported whole.
    expect(saved.json.value.replaced.entry).toMatchObject({ call_timeout_ms: 5000, queue_size: 3 });
    expect(entryOf('fx')).toMatchObject({ call_timeout_ms: 9000, queue_size: 3 });
    expect(fileDoc().by_hand).toBe(1);
    // With the revision it read, a write reports nothing.
    const next = await g.rest(
      'PATCH',
      '/api/v1/servers/fx',
      { call_timeout_ms: 8000 },
      {
        'x-api-key': g.key,
        'content-type': 'application/json',
        'if-match': `"${saved.json.value.revision}"`,
      },
    );
    expect(next.json.value).not.toHaveProperty('replaced');
  });

  it('a later hand edit wins and the server history reports it', async () => {
    const doc = fileDoc();
    doc.mcpServers.find((s: Json) => s.name === 'fx').call_timeout_ms = 7000;
    fs.writeFileSync(g.configFile, JSON.stringify(doc, null, 2));
    const history = await until(
      async () => (await g.rest('GET', '/api/v1/servers/fx')).json.value.history as Json[],
      (h) => h.some((e) => e.event === 'config_changed' && /by hand/.test(e.detail ?? '')),
    );
    expect(
      history.some((e) => e.event === 'config_changed' && /by hand/.test(e.detail ?? '')),
    ).toBe(true);
    expect(entryOf('fx')!.call_timeout_ms).toBe(7000);
  });

  it('refuses to write over a file that is not valid JSON now, and loses nothing', async () => {
    const good = fs.readFileSync(g.configFile, 'utf8');
    const broken = `${good.slice(0, -2)},,}`;
    fs.writeFileSync(g.configFile, broken);
    const refused = await g.rest('POST', '/api/v1/servers/fx/disable');
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain('is not valid JSON now');
    // The server is still shown, without its entry, saying why.
    const shown = await g.rest('GET', '/api/v1/servers/fx');
    expect(shown.status).toBe(200);
    expect(shown.json.value).toMatchObject({ entry: null, revision: null });
    expect(shown.json.value.file_error).toContain('is not valid JSON now');
    expect(fs.readFileSync(g.configFile, 'utf8')).toBe(broken);
    fs.writeFileSync(g.configFile, good);
  });

  it('deletes a server: gone from the file and from the list', async () => {
    const removed = await g.rest('DELETE', '/api/v1/servers/fx');
    expect(removed.status).toBe(200);
    expect(entryOf('fx')).toBeUndefined();
    const servers = (await g.rest('GET', '/api/v1/servers')).json.value.servers as Json[];
    expect(servers.map((s) => s.name)).toEqual(['memory']);
  });

  it('is for the admin key only', async () => {
    const anonymous = await g.rest(
      'POST',
      '/api/v1/servers',
      { name: 'x', command: 'y' },
      {
        'content-type': 'application/json',
      },
    );
    expect([401, 403]).toContain(anonymous.status);
  });
});
