/**
 * Held tools on the dashboard's Servers pages, in headless Chromium against a real
 * `codemux serve` whose upstream changes a tool after it was pinned.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDashboard, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { ROOT, until, writeConfig } from './helpers.ts';

const POLL = { timeout: UI_TIMEOUT_MS };
const MUTABLE = path.join(ROOT, 'test', 'fixtures', 'mutable-server.mjs');
const SCHEMA = { type: 'object', properties: { text: { type: 'string' } } };

let gw: RunningGateway;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const config = writeConfig({});
  const toolsFile = path.join(path.dirname(config), 'tools.json');
  fs.writeFileSync(
    toolsFile,
    JSON.stringify([{ name: 'echo', description: 'Echo v1', inputSchema: SCHEMA }]),
  );
  fs.writeFileSync(
    config,
    JSON.stringify({
      mcpServers: [
        {
          name: 'mut',
          command: process.execPath,
          args: [MUTABLE],
          env: { MUTABLE_TOOLS_FILE: toolsFile },
        },
      ],
    }),
  );
  gw = await startGateway(config);
  await waitUntilReady(gw);
  fs.writeFileSync(
    toolsFile,
    JSON.stringify([{ name: 'echo', description: 'Echo v2, changed', inputSchema: SCHEMA }]),
  );
  await gw.rest('POST', '/api/v1/code/exec', { code: "call_tool('mut','relist',{})" });
  await until(
    'mut.echo held',
    async () =>
      (await gw.rest('GET', '/api/v1/tools/held')).json.items.length === 1 ? true : undefined,
    20_000,
    50,
  );
  ({ browser, page } = await openDashboard(gw));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const ready = () => page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
const text = (selector: ReturnType<Page['locator']>) => async () =>
  (await selector.textContent()) ?? '';

it('marks a held tool on the Servers pages with before / after and approves it', async () => {
  await page.goto(`${gw.url}/ui/servers`);
  await ready();
  const row = page.getByRole('table', { name: 'Servers' }).getByRole('row', { name: /mut/ });
  await expect.poll(text(row), POLL).toContain('held');
  await page.getByRole('link', { name: 'mut' }).click();
  await ready();
  const echo = page.getByRole('row').filter({ hasText: /^echo held/ });
  await expect.poll(text(echo), POLL).toContain('changed since it was approved (description)');
  await expect.poll(text(echo.getByLabel('Before')), POLL).toContain('"Echo v1"');
  await expect.poll(text(echo.getByLabel('After')), POLL).toContain('"Echo v2, changed"');
  await echo.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(text(page.locator('#status')), POLL).toContain('approved mut.echo');
  await expect.poll(() => page.getByRole('button', { name: 'Approve' }).count(), POLL).toBe(0);
  expect((await gw.rest('GET', '/api/v1/tools/held')).json.items).toEqual([]);
  const call = await gw.rest('POST', '/api/v1/code/exec', { code: "call_tool('mut','echo',{})" });
  expect(call.json.value.ok).toBe(true);
}, 60_000);

/** Lists `description` as mut.echo's and waits until the held list shows it. */
async function listEcho(description: string): Promise<void> {
  fs.writeFileSync(
    path.join(path.dirname(gw.configFile), 'tools.json'),
    JSON.stringify([{ name: 'echo', description, inputSchema: SCHEMA }]),
  );
  await gw.rest('POST', '/api/v1/code/exec', { code: "call_tool('mut','relist',{})" });
  await until(
    `mut.echo held as "${description}"`,
    async () => {
      const items = (await gw.rest('GET', '/api/v1/tools/held')).json.items;
      return items[0]?.after.description === description ? true : undefined;
    },
    20_000,
    50,
  );
}

it('approves only the definition the page showed: a later change is refused and shown (issue 33, item 3)', async () => {
  await listEcho('Echo v3, shown');
  await page.goto(`${gw.url}/ui/servers/mut`);
  await ready();
  const echo = page.getByRole('row').filter({ hasText: /^echo held/ });
  await expect.poll(text(echo.getByLabel('After')), POLL).toContain('"Echo v3, shown"');
  await listEcho('Echo v4, changed behind the page');
  await echo.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(text(page.locator('#status')), POLL).toContain('changed since it was shown');
  await expect
    .poll(text(echo.getByLabel('After')), POLL)
    .toContain('"Echo v4, changed behind the page"');
  const still = (await gw.rest('GET', '/api/v1/tools/held')).json.items;
  expect(still).toMatchObject([
    { tool: 'echo', after: { description: 'Echo v4, changed behind the page' } },
  ]);
  await echo.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(text(page.locator('#status')), POLL).toContain('approved mut.echo');
  expect((await gw.rest('GET', '/api/v1/tools/held')).json.items).toEqual([]);
}, 60_000);
