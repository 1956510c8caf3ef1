/**
 * The dashboard end to end: headless Chromium (Debian's) against a real `codemux serve`
 * with real upstreams, through the accessible names the contract fixes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBrowser } from './dashboard-session.ts';
import { type RunningGateway, startGateway } from './gateway.ts';
import { SERVERS, writeConfig } from './helpers.ts';
import { docImage } from './screenshots.ts';

/** Generous: a loaded 2-core machine runs several suites at once. */
const UI_TIMEOUT_MS = 15_000;

const FORMAT_CURRENCY = `const formatter = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: currency_code,
});
formatter.format(amount);`;

const POLL = { timeout: UI_TIMEOUT_MS };

/** Retrying assertions on a locator (playwright-core has no `expect`): each polls until it holds. */
function see(locator: Locator) {
  const text = async () => (await locator.textContent()) ?? '';
  return {
    toBeVisible: () => locator.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS }),
    toContainText: (want: string | RegExp) =>
      typeof want === 'string'
        ? expect.poll(text, POLL).toContain(want)
        : expect.poll(text, POLL).toMatch(want),
    toHaveText: (want: string) => expect.poll(async () => (await text()).trim(), POLL).toBe(want),
    toHaveCount: (n: number) => expect.poll(() => locator.count(), POLL).toBe(n),
    toBeChecked: () => expect.poll(() => locator.isChecked(), POLL).toBe(true),
    toHaveValue: (want: string) => expect.poll(() => locator.inputValue(), POLL).toBe(want),
    toBeDisabled: () => expect.poll(() => locator.isDisabled(), POLL).toBe(true),
    toBeFocused: () =>
      expect
        .poll(() => locator.evaluate((e) => e === e.ownerDocument.activeElement), POLL)
        .toBe(true),
  };
}

let gw: RunningGateway;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const cspViolations: string[] = [];

async function shot(name: string, target: Page = page): Promise<void> {
  await docImage(target, name);
}

/** Opens a dashboard path and waits for its client module to have loaded its data. */
async function open(route: string, target: Page = page): Promise<void> {
  await target.goto(`${gw.url}${route}`);
  await target.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
}

/**
 * Replaces the code editor's text as a person pastes it: select all, then a paste event that
 * CodeMirror handles itself (synthetic insertText makes Chromium edit the DOM natively, which
 * writes style attributes the CSP refuses).
 */
async function typeCode(code: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Code', exact: true });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  // biome-ignore format: DOM types are not in this tsconfig
  await editor.evaluate((element, text) => {
    // @ts-expect-error DataTransfer exists in the page, not in Node's types
    const data = new DataTransfer();
    data.setData('text/plain', text);
    element.dispatchEvent(
      // @ts-expect-error ClipboardEvent exists in the page
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, code);
}

async function signIn(target: Page, key: string): Promise<void> {
  await target.goto(`${gw.url}/ui/`);
  await target.getByLabel('API key').fill(key);
  await target.getByRole('button', { name: 'Sign in' }).click();
}

/** A fresh browser context (its own cookie jar), its CSP violations collected unless told not to. */
async function freshPage(watchCsp = true): Promise<{ context: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await ctx.newPage();
  p.setDefaultTimeout(UI_TIMEOUT_MS);
  // Chromium's own editing under synthetic input (the tests' typing) may log refused style
  // attributes; pages are checked for violations in a context of their own instead.
  if (!watchCsp) return { context: ctx, page: p };
  p.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text()))
      cspViolations.push(`${expect.getState().currentTestName}: ${p.url()}: ${m.text()}`);
  });
  return { context: ctx, page: p };
}

beforeAll(async () => {
  const config = writeConfig({ mcpServers: [SERVERS.fixture, SERVERS.memory] });
  const scripts = path.join(path.dirname(config), 'scripts');
  fs.mkdirSync(scripts);
  fs.writeFileSync(path.join(scripts, 'hello.js'), 'return "hello";\n');
  gw = await startGateway(config);
  browser = await sharedBrowser();
  ({ context, page } = await freshPage(false));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  if (gw) fs.rmSync(path.dirname(gw.configFile), { recursive: true, force: true });
});

describe('sign-in', () => {
  it('sends a visitor without a session to the sign-in page, from every page', async () => {
    for (const route of ['/ui/', '/ui/servers', '/ui/code-tools/x', '/ui/activity', '/ui/tokens']) {
      const response = await fetch(`${gw.url}${route}`, { redirect: 'manual' });
      expect([route, response.status, response.headers.get('location')]).toEqual([
        route,
        303,
        '/ui/login',
      ]);
    }
    await page.goto(`${gw.url}/ui/servers`);
    await see(page.getByRole('heading', { name: 'Sign in to codemux' })).toBeVisible();
    await shot('sign-in');
  });

  it.each([
    ['a wrong key', 'not-the-key', 'That API key is not valid.'],
    ['an empty key', ' ', 'Enter the API key.'],
  ])('refuses %s with a message', async (_case, key, message) => {
    const { context: ctx, page: p } = await freshPage();
    try {
      await signIn(p, key);
      await see(p.getByRole('alert')).toHaveText(message);
      expect(await ctx.cookies()).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('refuses an agent token: the dashboard is for the admin key', async () => {
    const created = await gw.rest('POST', '/api/v1/tokens', {
      name: 'agent-a',
      servers: ['fixture'],
    });
    const { context: ctx, page: p } = await freshPage();
    try {
      await signIn(p, created.json.value.token);
      await see(p.getByRole('alert')).toContainText('Agent tokens cannot sign in');
      expect(await ctx.cookies()).toEqual([]);
    } finally {
      await ctx.close();
      await gw.rest('DELETE', '/api/v1/tokens/agent-a');
    }
  });

  it('signs in with the admin key into an HttpOnly, SameSite=Strict session cookie that is not the key', async () => {
    await signIn(page, gw.key);
    await see(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({
      name: 'codemux_session',
      httpOnly: true,
      sameSite: 'Strict',
    });
    expect(cookies[0]!.value).not.toContain(gw.key);
    expect(cookies[0]!.value.length).toBeGreaterThanOrEqual(40);
  });

  it('signs in once from /ui/?apikey=KEY and drops the key from the URL', async () => {
    const { context: ctx, page: p } = await freshPage();
    try {
      await p.goto(`${gw.url}/ui/?apikey=${encodeURIComponent(gw.key)}`);
      await see(p.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
      expect(p.url()).toBe(`${gw.url}/ui/overview`);
      expect((await ctx.cookies()).map((c) => c.name)).toEqual(['codemux_session']);
    } finally {
      await ctx.close();
    }
  });

  it('serves every page under a CSP that allows its own origin only', async () => {
    const cookie = (await context.cookies())[0]!;
    for (const route of ['/ui/login', '/ui/servers', '/ui/playground']) {
      const response = await fetch(`${gw.url}${route}`, {
        headers: { cookie: `${cookie.name}=${cookie.value}` },
      });
      expect(response.status).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'self'");
      expect(await response.text()).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>/);
    }
    const html = await (await fetch(`${gw.url}/ui/login`)).text();
    const asset = /src="(\/ui\/assets\/app\.js\?v=[0-9a-f]+)"/.exec(html)![1]!;
    const js = await fetch(`${gw.url}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
  });

  // The cookie is a REST credential for the dashboard's pages; a write needs the UI header and our Origin.
  it.each([
    ['no X-Codemux-UI header', 403, {}],
    ['a foreign Origin', 403, { 'x-codemux-ui': '1', origin: 'http://evil.example' }],
    ['the header and our own Origin', 201, { 'x-codemux-ui': '1', origin: 'SELF' }],
  ])('a cookie-authenticated REST write with %s answers %i', async (_case, status, extra) => {
    const cookie = (await context.cookies())[0]!;
    const headers: Record<string, string> = {
      cookie: `${cookie.name}=${cookie.value}`,
      'content-type': 'application/json',
    };
    for (const [k, v] of Object.entries(extra)) headers[k] = v === 'SELF' ? gw.url : v;
    const name = `csrf-${status}-${Object.keys(extra).length}`;
    const response = await fetch(`${gw.url}/api/v1/code-tools`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(status);
    if (status === 201) await gw.rest('DELETE', `/api/v1/code-tools/${name}`);
  });

  it('does not accept the session cookie on /mcp', async () => {
    const cookie = (await context.cookies())[0]!;
    const response = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        cookie: `${cookie.name}=${cookie.value}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(403);
  });
});

describe('pages', () => {
  it('Servers: a row per server with its state, protocol and tool count; a server page lists its tools', async () => {
    await open('/ui/servers');
    const table = page.getByRole('table', { name: 'Servers' });
    const fixture = table.getByRole('row', { name: /fixture/ });
    await see(fixture).toContainText('ready');
    await see(fixture).toContainText('stdio');
    await see(table.getByRole('row', { name: /memory/ })).toContainText('ready');
    await shot('servers');
    await page.getByRole('link', { name: 'fixture' }).click();
    await page.locator('main[data-ready="true"]').waitFor();
    await see(page.getByRole('heading', { name: 'Tools of fixture' })).toBeVisible();
    await see(page.getByRole('row', { name: /^echo Echo the arguments back/ })).toBeVisible();
    await shot('server-tools');
  });

  it('navigates between the nine pages with named links', async () => {
    await open('/ui/servers');
    for (const [name, heading] of [
      ['Overview', 'Overview'],
      ['Code tools', 'Code tools'],
      ['Playground', 'Playground'],
      ['Activity', 'Activity'],
      ['Approvals', 'Approvals'],
      ['Tokens', 'Tokens'],
      ['Scripts', 'Scripts'],
      ['Tools', 'Tools'],
      ['Servers', 'Servers'],
    ]) {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name, exact: true })
        .click();
      await see(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    }
  });

  it('Scripts: the stored scripts, read only', async () => {
    await open('/ui/scripts');
    await see(
      page.getByRole('table', { name: 'Scripts' }).getByRole('row', { name: /hello/ }),
    ).toContainText('ok');
    await shot('scripts');
  });
});

describe('code tools', () => {
  it('creates format_currency, declares its params in the dialog, saves the code and tests it: $1,234.50', async () => {
    await open('/ui/code-tools');
    await page.getByRole('button', { name: 'New code tool' }).click();
    const create = page.getByRole('dialog', { name: 'New code tool' });
    await create.getByLabel('Name').fill('format_currency');
    await create.getByLabel('Description').fill('Formats an amount as currency');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/ui/code-tools/format_currency');
    await page.locator('main[data-ready="true"]').waitFor();

    for (const row of [
      { name: 'amount', type: 'decimal', description: 'the amount' },
      { name: 'currency_code', type: 'string', description: '3-letter code' },
    ]) {
      await page.getByRole('button', { name: 'Add parameter' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill(row.name);
      await dialog.getByLabel('Description').fill(row.description);
      await dialog.getByLabel('Type').selectOption(row.type);
      await dialog.getByLabel('Required').check();
      await dialog.getByRole('button', { name: 'Save' }).click();
      // The row is saved at once: the REST route already has it.
      await see(
        page
          .getByRole('table', { name: 'Parameters' })
          .getByRole('row', { name: new RegExp(row.name) }),
      ).toBeVisible();
    }
    const stored = await gw.rest('GET', '/api/v1/code-tools/format_currency');
    expect(
      stored.json.value.params.map((p: { name: string; type: string }) => [p.name, p.type]),
    ).toEqual([
      ['amount', 'decimal'],
      ['currency_code', 'string'],
    ]);
    expect(stored.json.value.code).toBe('');

    await typeCode(FORMAT_CURRENCY);
    await page.getByLabel('Timeout (ms)').fill('3000');
    await page.getByLabel('Memory limit (MB)').fill('64');
    await see(page.getByLabel('Enabled')).toBeChecked();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await see(page.getByRole('form', { name: 'Configure' }).getByRole('status')).toContainText(
      'Saved version 1',
    );
    const saved = (await gw.rest('GET', '/api/v1/code-tools/format_currency')).json.value;
    expect([saved.code, saved.timeout_ms, saved.memory_limit_mb, saved.enabled]).toEqual([
      FORMAT_CURRENCY,
      3000,
      64,
      true,
    ]);

    const test = page.getByRole('form', { name: 'Test' });
    await test.getByLabel('amount').fill('1234.5');
    await test.getByLabel('currency_code').fill('USD');
    await test.getByRole('button', { name: 'Run test' }).click();
    await see(page.getByRole('region', { name: 'Test result' })).toContainText('$1,234.50');
    await shot('code-tool-configure');
  });

  it('the saved tool is an MCP tool an SDK client calls over Streamable HTTP', async () => {
    const client = new Client({ name: 'dashboard-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': gw.key } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'format_currency');
      expect(tool?.inputSchema.required).toEqual(['amount', 'currency_code']);
      const result = await client.callTool({
        name: 'format_currency',
        arguments: { amount: 1234.5, currency_code: 'USD' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '$1,234.50' }]);
    } finally {
      await client.close();
    }
  });

  it('edits and deletes a param row at once, and restores an earlier version', async () => {
    await open('/ui/code-tools/format_currency');
    await page.getByRole('button', { name: 'Add parameter' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('digits');
    await dialog.getByLabel('Type').selectOption('integer');
    await dialog.getByLabel('Default value').fill('2');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit digits' }).click();
    await see(dialog.getByLabel('Default value')).toHaveValue('2');
    await dialog.getByLabel('Description').fill('fraction digits');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await see(page.getByRole('row', { name: /digits integer no 2 fraction digits/ })).toBeVisible();
    const edited = (await gw.rest('GET', '/api/v1/code-tools/format_currency')).json.value.params;
    expect(edited.find((p: { name: string }) => p.name === 'digits')).toMatchObject({
      description: 'fraction digits',
      default_value: 2,
      required: false,
    });
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete digits' }).click();
    await see(page.getByRole('row', { name: /digits integer/ })).toHaveCount(0);

    await typeCode("'changed'");
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const configure = page.getByRole('form', { name: 'Configure' });
    await see(configure.getByRole('status')).toContainText('Saved version 2');
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    // The page's status line, below the form: Save's own status no longer claims version 2.
    await see(page.getByRole('status').filter({ hasText: 'Restored version 1' })).toBeVisible();
    await see(configure.getByRole('status')).toHaveText('');
    expect((await gw.rest('GET', '/api/v1/code-tools/format_currency')).json.value.code).toBe(
      FORMAT_CURRENCY,
    );
    await open('/ui/code-tools');
    await see(
      page.getByRole('table', { name: 'Code tools' }).getByRole('row', { name: /format_currency/ }),
    ).toBeVisible();
    await shot('code-tools');
  });
});

describe('playground', () => {
  const PROGRAM = `const a = call_tool('fixture', 'echo', { message: 'hi' });
const b = await tools.fixture.sleep({ ms: 20 });
console.log('echoed', a.ok);
({ echoed: a.ok, slept: b.ok, name: input.name })`;

  it('runs a program and shows its value, logs and the tool calls as a timeline', async () => {
    await open('/ui/playground');
    await typeCode(PROGRAM);
    await page.getByLabel('Input').fill('{"name": "Ada"}');
    await see(page.getByLabel('Language')).toHaveValue('javascript');
    await page.getByRole('button', { name: 'Run' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await see(result.getByLabel('Value')).toContainText('"name": "Ada"');
    await see(result.getByLabel('Logs')).toHaveText('echoed true');
    const calls = result.getByRole('list', { name: 'Tool calls' }).getByRole('listitem');
    await see(calls).toHaveCount(2);
    await see(calls.first()).toContainText(/fixture\.echo\s*[\d.]+ ms/);
    await see(calls.nth(1)).toContainText('fixture.sleep');
    await shot('playground');
    const records = await gw.rest('GET', '/api/v1/activity?kind=execution&limit=1');
    expect(records.json.items[0]).toMatchObject({ surface: 'ui', status: 'success' });
  });

  it('a dry run answers upstream calls with stubs and sends nothing', async () => {
    const before = await gw.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'stats', {})",
    });
    await open('/ui/playground');
    await page
      .getByRole('textbox', { name: 'Code', exact: true })
      .fill("call_tool('fixture', 'echo', {message: 'dry'})");
    await page.getByRole('switch', { name: 'Dry run' }).check();
    await see(page.getByRole('switch', { name: 'Dry run' })).toBeChecked();
    await page.getByRole('button', { name: 'Run' }).click();
    const result = page.getByRole('region', { name: 'Result' });
    await see(result).toContainText('dry run');
    await see(result.getByRole('list', { name: 'Tool calls' }).getByRole('listitem')).toHaveCount(
      1,
    );
    await shot('playground-dry-run');
    const after = await gw.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'stats', {})",
    });
    // The fixture counts the calls it served (stats itself not counted): the dry run sent none.
    const served = (r: typeof before) =>
      JSON.parse(r.json.value.result.content[0].text).calls as number;
    expect(served(after)).toBe(served(before));
    // The history marks the dry run and its stubbed call.
    // The history marks the dry run (the newest run of the UI) and its stubbed call under it.
    await open('/ui/activity?surface=ui');
    const rows = page.getByRole('table', { name: 'Activity' }).locator('tbody tr');
    await see(rows.nth(0)).toContainText('dry run');
    await see(rows.nth(1)).toContainText('↳ fixture.echo');
    await see(rows.nth(1)).toContainText('dry run');
  });
});

describe('activity', () => {
  it('shows new records live, without a reload, and a record with its calls and JSON', async () => {
    await open('/ui/activity');
    await see(page.locator('#live')).toContainText('Live');
    const rows = page.getByRole('table', { name: 'Activity' }).getByRole('row');
    const marker = `live-${Date.now()}`;
    await gw.rest('POST', '/api/v1/code/exec', {
      code: `call_tool('fixture', 'echo', { message: '${marker}' }); 1`,
    });
    await see(rows.filter({ hasText: 'fixture.echo' }).first()).toBeVisible();
    await see(rows.filter({ hasText: 'rest' }).first()).toBeVisible();
    await shot('activity');

    await page.getByLabel('Status').selectOption('tool_error');
    await page.getByRole('button', { name: 'Filter' }).click();
    await see(rows.filter({ hasText: 'fixture.echo' })).toHaveCount(0);
    await gw.rest('POST', '/api/v1/code/exec', { code: "call_tool('fixture', 'fail', {}); 1" });
    await see(rows.filter({ hasText: 'fixture.fail' }).first()).toBeVisible();

    const execution = (await gw.rest('GET', '/api/v1/activity?kind=execution&limit=1')).json
      .items[0];
    await open(`/ui/activity/${execution.id}`);
    await see(
      page.getByRole('table', { name: 'Calls' }).getByRole('row', { name: /fixture\.fail/ }),
    ).toBeVisible();
    await see(page.getByLabel('Record JSON')).toContainText(`"id": "${execution.id}"`);
    await shot('activity-record');
  });

  it('counts the records live: the total grows as new ones arrive', async () => {
    await open('/ui/activity');
    await see(page.locator('#live')).toContainText('Live');
    const status = page.getByRole('status');
    await see(status).toContainText('records.');
    const before = Number(
      /^(\d+) records?\.$/.exec(((await status.textContent()) ?? '').trim())?.[1],
    );
    expect(before).toBeGreaterThan(0);
    // An execution and its one call: two records.
    await gw.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'echo', { message: 'counted' }); 1",
    });
    await see(status).toHaveText(`${before + 2} records.`);
  });

  it('shows arguments and input under secret-looking keys as [redacted]', async () => {
    const run = await gw.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('fixture', 'sleep', { ms: 1, password: 'hunter2', auth: { apiKey: 'k-777' } }); 1",
      input: { access_token: 'tok-999', user: 'ada' },
    });
    await open(`/ui/activity/${run.json.activity_id}`);
    await see(page.getByLabel('input', { exact: true })).toContainText(
      '"access_token": "[redacted]"',
    );
    await see(page.getByLabel('input', { exact: true })).toContainText('"user": "ada"');
    await open(`/ui/activity/${run.json.activity_id}.0001`);
    const args = page.getByLabel('args', { exact: true });
    await see(args).toContainText('"password": "[redacted]"');
    await see(args).toContainText('"apiKey": "[redacted]"');
    await see(args).toContainText('"ms": 1');
    const shown = (await page.locator('main').textContent()) ?? '';
    for (const secret of ['hunter2', 'k-777']) expect(shown).not.toContain(secret);
    await shot('activity-redacted');
  });

  it('pages through the history with its filters in the URL, so a view can be shared', async () => {
    const marker = `paged-${Date.now()}`;
    // Two executions of 30 calls each: 62 records carry the marker (in code or arguments).
    for (let run = 0; run < 2; run++) {
      await gw.rest('POST', '/api/v1/code/exec', {
        code: `for (let i = 0; i < 30; i++) call_tool('fixture', 'echo', { message: '${marker}-' + i }); 1`,
      });
    }
    await expect
      .poll(async () => (await gw.rest('GET', `/api/v1/activity?search=${marker}`)).json.total)
      .toBe(62);
    await open(`/ui/activity?search=${marker}&surface=rest`);
    await see(page.getByLabel('Search')).toHaveValue(marker);
    await see(page.getByLabel('Surface')).toHaveValue('rest');
    const rows = page.getByRole('table', { name: 'Activity' }).getByRole('row');
    const pages = page.getByRole('navigation', { name: 'Pages' });
    await see(pages).toContainText('1-50 of 62');
    await see(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await pages.getByRole('button', { name: 'Next' }).click();
    await see(pages).toContainText('51-62 of 62');
    // The header row and 12 records.
    await see(rows).toHaveCount(13);
    expect(new URL(page.url()).searchParams.get('offset')).toBe('50');
    await see(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
    await shot('activity-paged');

    // The URL as shared: the same page, the same filters.
    await open(new URL(page.url()).pathname + new URL(page.url()).search);
    await see(pages).toContainText('51-62 of 62');
    await page.getByLabel('Tool').fill('nothing-is-called-this');
    await page.getByRole('button', { name: 'Filter' }).click();
    await see(page.getByRole('status')).toContainText('0 records.');
    expect(new URL(page.url()).searchParams.get('tool')).toBe('nothing-is-called-this');
    expect(new URL(page.url()).searchParams.get('offset')).toBeNull();
  });

  it("lists an execution's calls right under it, marked", async () => {
    const marker = `nested-${Date.now()}`;
    await gw.rest('POST', '/api/v1/code/exec', {
      code: `call_tool('fixture', 'echo', { message: '${marker}' }); call_tool('fixture', 'fail', { message: '${marker}' }); 1`,
    });
    await expect
      .poll(async () => (await gw.rest('GET', `/api/v1/activity?search=${marker}`)).json.total)
      .toBe(3);
    await open(`/ui/activity?search=${marker}`);
    const rows = page.getByRole('table', { name: 'Activity' }).locator('tbody tr');
    await see(rows).toHaveCount(3);
    const cells = async (i: number) =>
      (await rows.nth(i).locator('td').nth(4).textContent())?.trim();
    expect([await cells(0), await cells(1), await cells(2)]).toEqual([
      'code',
      '↳ fixture.echo',
      '↳ fixture.fail',
    ]);
  });

  it('re-runs an execution in the Playground: its code, input and language loaded', async () => {
    const run = await gw.rest('POST', '/api/v1/code/exec', {
      code: 'const n: number = input.n;\n({ doubled: n * 2 })',
      language: 'typescript',
      input: { n: 21 },
    });
    await open(`/ui/activity/${run.json.activity_id}`);
    await page.getByRole('link', { name: 'Re-run in Playground' }).click();
    await page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
    await see(page.getByRole('status')).toContainText('Loaded the program of activity record');
    await see(page.getByLabel('Language')).toHaveValue('typescript');
    await see(page.getByLabel('Input')).toHaveValue('{\n  "n": 21\n}');
    await page.getByRole('button', { name: 'Run' }).click();
    await see(page.getByLabel('Value')).toContainText('"doubled": 42');
  });

  it('marks values that were cut', async () => {
    const big = 'x'.repeat(20_000);
    const run = await gw.rest('POST', '/api/v1/code/exec', {
      code: 'input.big.length',
      input: { big },
    });
    await open(`/ui/activity/${run.json.activity_id}`);
    await see(page.locator('mark.cut').first()).toContainText('[cut:');
  });
});

describe('tokens', () => {
  it('creates a token (its secret shown once), lists it, and revokes it', async () => {
    await open('/ui/tokens');
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('ci-agent');
    await form.getByRole('group', { name: 'Servers' }).getByLabel('fixture').check();
    await form.getByRole('group', { name: 'Code tools' }).getByLabel('format_currency').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByLabel('Token secret', { exact: true });
    await see(secret).toContainText(/\S{20,}/);
    const token = (await secret.textContent())!.trim();
    await see(
      page.getByRole('table', { name: 'Tokens' }).getByRole('row', { name: /ci-agent/ }),
    ).toContainText('format_currency');
    await shot('tokens');
    const asAgent = { 'x-api-key': token, 'content-type': 'application/json' };
    const servers = await gw.rest('GET', '/api/v1/servers', undefined, asAgent);
    expect(servers.json.value.servers.map((s: { name: string }) => s.name)).toEqual(['fixture']);

    await open('/ui/tokens');
    await see(page.getByLabel('Token secret', { exact: true })).toHaveCount(0);
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Revoke ci-agent' }).click();
    await see(page.getByRole('status')).toContainText('revoked');
    expect((await gw.rest('GET', '/api/v1/servers', undefined, asAgent)).status).toBe(401);
  });
});

describe('layout', () => {
  it('stays usable on a narrow window and keyboard first', async () => {
    await page.goto(`${gw.url}/ui/?apikey=${encodeURIComponent(gw.key)}`);
    await page.setViewportSize({ width: 420, height: 800 });
    await open('/ui/playground');
    await page.keyboard.press('Tab');
    await see(page.getByRole('link', { name: 'codemux' })).toBeFocused();
    await shot('playground-narrow');
    await open('/ui/servers');
    await shot('servers-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('renders every page and a playground run with no Content-Security-Policy violation', async () => {
    const { context: ctx, page: p } = await freshPage();
    try {
      await p.goto(`${gw.url}/ui/?apikey=${encodeURIComponent(gw.key)}`);
      for (const route of [
        '/ui/overview',
        '/ui/servers',
        '/ui/servers/fixture',
        '/ui/code-tools',
        '/ui/code-tools/format_currency',
        '/ui/activity',
        '/ui/tokens',
        '/ui/scripts',
        '/ui/scripts/hello',
        '/ui/tools',
        '/ui/tools/fixture/echo',
        '/ui/playground',
      ])
        await open(route, p);
      await p.getByRole('button', { name: 'Run' }).click();
      await see(p.getByRole('region', { name: 'Result' })).toContainText('Value');
      // Console messages arrive in order: once a marker logged now has come, any earlier one has.
      const marker = `csp-check-${Date.now()}`;
      const arrived = p.waitForEvent('console', (m) => m.text() === marker);
      await p.evaluate((text) => console.log(text), marker);
      await arrived;
      expect(cspViolations.join('\n')).toBe('');
    } finally {
      await ctx.close();
    }
  });

  it('signs out: the session ends on the server', async () => {
    const cookie = (await context.cookies())[0]!;
    await open('/ui/servers');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await see(page.getByLabel('API key')).toBeVisible();
    const replay = await fetch(`${gw.url}/api/v1/servers`, {
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    expect(replay.status).toBe(401);
  });
});

describe('tokens REST', () => {
  it.each([
    ['no name', { servers: ['fixture'] }, 400, 'INVALID_TOKEN_NAME', 'name'],
    ['a bad name', { name: 'a b', servers: ['fixture'] }, 400, 'INVALID_TOKEN_NAME', 'token name'],
    ['no scope', { name: 'empty' }, 400, 'INVALID_TOKEN_SERVERS', 'at least one server'],
    [
      'servers not a list',
      { name: 'x', servers: 'fixture' },
      400,
      'INVALID_TOKEN_SERVERS',
      'servers',
    ],
    [
      'code_tools not names',
      { name: 'x', code_tools: [1] },
      400,
      'INVALID_TOKEN_SERVERS',
      'code_tools',
    ],
    [
      'an unknown server',
      { name: 'x', servers: ['fixtur'] },
      400,
      'UNKNOWN_SERVER',
      'did you mean `fixture`',
    ],
    ['not an object', [], 400, 'INVALID_TOKEN', 'the body must be'],
  ])('refuses a token with %s', async (_case, body, status, code, words) => {
    const answer = await gw.rest('POST', '/api/v1/tokens', body);
    expect([answer.status, answer.json.error.code]).toEqual([status, code]);
    expect(answer.json.error.message).toContain(words);
  });

  it('answers 409 for a name taken, 404 for revoking an unknown one, 403 to an agent token', async () => {
    const created = await gw.rest('POST', '/api/v1/tokens', {
      name: 'twice',
      servers: ['fixture'],
    });
    expect(created.status).toBe(201);
    const again = await gw.rest('POST', '/api/v1/tokens', { name: 'twice', servers: ['fixture'] });
    expect([again.status, again.json.error.code]).toEqual([409, 'TOKEN_EXISTS']);
    const asAgent = { 'x-api-key': created.json.value.token, 'content-type': 'application/json' };
    expect((await gw.rest('GET', '/api/v1/tokens', undefined, asAgent)).status).toBe(403);
    expect((await gw.rest('DELETE', '/api/v1/tokens/twice')).status).toBe(200);
    const gone = await gw.rest('DELETE', '/api/v1/tokens/twice');
    expect([gone.status, gone.json.error.code]).toEqual([404, 'TOKEN_NOT_FOUND']);
  });
});
