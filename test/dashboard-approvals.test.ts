/**
 * Approvals on the dashboard, in headless Chromium against a real `codemux serve` whose
 * upstream lists a destructive tool (tool_policy's default: ask): held REST executions
 * appear live and are approved and denied by clicking; a tool's annotations and policy
 * verdict show on its server's page.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { ROOT, writeConfig } from './helpers.ts';
import { docShot } from './screenshots.ts';

const POLL = { timeout: UI_TIMEOUT_MS };
const MUTABLE = path.join(ROOT, 'test', 'fixtures', 'mutable-server.mjs');
const SCHEMA = { type: 'object', properties: { path: { type: 'string' } } };
/** Set to a file name (….png) to keep screenshots: a pending approval, decided ones, a server's tools. */
/** The Approvals page's screenshots, for docs/dashboard.md. */
const shot = (suffix = '') => docShot(page, `approvals${suffix}`);

let gw: RunningGateway;
let browser: Browser;
let page: Page;
let cspViolations: string[];

beforeAll(async () => {
  const config = writeConfig({});
  const toolsFile = path.join(path.dirname(config), 'tools.json');
  fs.writeFileSync(
    toolsFile,
    JSON.stringify([
      {
        name: 'wipe',
        description: 'Delete everything under a path',
        inputSchema: SCHEMA,
        annotations: { destructiveHint: true },
      },
      {
        name: 'peek',
        description: 'Read a path',
        inputSchema: SCHEMA,
        annotations: { readOnlyHint: true },
      },
    ]),
  );
  fs.writeFileSync(
    config,
    JSON.stringify({
      tool_pinning: 'off',
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
  ({ browser, page, cspViolations } = await openDashboard(gw));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const ready = () => page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
/** A held call: the REST execution answers only once someone decides. */
const heldExec = (target: string) =>
  gw.rest('POST', '/api/v1/code/exec', {
    code: `call_tool('mut', 'wipe', { path: ${JSON.stringify(target)} })`,
  });
const pendingRow = (target: string) =>
  page
    .getByRole('table', { name: 'Pending approvals' })
    .getByRole('row')
    .filter({ hasText: target });

it('shows a held call live and approves it: the execution gets the result', async () => {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Approvals' })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
  await ready();
  await expect.poll(textOf(page.locator('#live')), POLL).toContain('Live');

  const exec = heldExec('/srv/first');
  const row = pendingRow('/srv/first');
  await expect.poll(textOf(row), POLL).toContain('wipe');
  const shown = await textOf(row)();
  expect(shown).toContain('mut');
  expect(shown).toContain('admin');
  expect(shown).toContain('annotated destructive');
  expect(shown).toContain('pending');
  expect(await textOf(row.getByLabel('Arguments'))()).toContain('"path": "/srv/first"');
  await row.getByText('Program', { exact: true }).click();
  expect(await textOf(row.getByLabel('Program'))()).toContain("call_tool('mut', 'wipe'");
  await shot();

  // The navigation counts the pending approvals; its accessible name still starts with "Approvals".
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
  expect(
    await textOf(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }),
    )(),
  ).toBe('Approvals (1)');

  await row.getByRole('button', { name: 'Approve' }).click();
  const answer = await exec;
  expect(answer.status).toBe(200);
  expect(JSON.stringify(answer.json.value)).toContain('wipe:{\\"path\\":\\"/srv/first\\"}');
  await expect.poll(textOf(row), POLL).toContain('approved');
  expect(await textOf(row)()).toContain('by admin via dashboard');
  expect(await row.getByRole('button', { name: 'Approve' }).count()).toBe(0);
}, 60_000);

it('denies a held call: the call envelope names the dashboard', async () => {
  const exec = heldExec('/srv/second');
  const row = pendingRow('/srv/second');
  await row.getByRole('button', { name: 'Deny' }).click();
  const answer = await exec;
  expect(answer.json.value).toMatchObject({ ok: false });
  expect(JSON.stringify(answer.json.value)).toContain('was denied by admin via dashboard');
  await expect.poll(textOf(row), POLL).toContain('denied');
  expect(await textOf(row)()).toContain('by admin via dashboard');
}, 60_000);

it('updates the row live when the decision comes from elsewhere, and says so on a late click', async () => {
  const exec = heldExec('/srv/third');
  const row = pendingRow('/srv/third');
  await expect.poll(textOf(row), POLL).toContain('pending');
  const [held] = (await gw.rest('GET', '/api/v1/approvals?status=pending')).json.items;
  expect(held.args).toEqual({ path: '/srv/third' });
  // Decided by REST (as the CLI does): the page hears it on the stream.
  const decided = await gw.rest('POST', `/api/v1/approvals/${held.id}/deny`);
  expect(decided.status).toBe(200);
  await exec;
  await expect.poll(textOf(row), POLL).toContain('denied');
  expect(await textOf(row)()).toContain('by admin');
  expect(await row.getByRole('button', { name: 'Deny' }).count()).toBe(0);
  await shot('-decided');
}, 60_000);

it('answers a click on an approval decided elsewhere with a message, not an error', async () => {
  // The stream is cut first, so the page still shows the approval pending when it is clicked.
  await page.route('**/api/v1/approvals/stream', (route) => route.abort());
  await page.reload();
  await ready();
  const exec = heldExec('/srv/fourth');
  let id = '';
  await expect
    .poll(async () => {
      const items = (await gw.rest('GET', '/api/v1/approvals?status=pending')).json.items;
      id = items[0]?.id ?? '';
      return id;
    }, POLL)
    .not.toBe('');
  await page.reload();
  await ready();
  const row = pendingRow('/srv/fourth');
  await expect.poll(textOf(row), POLL).toContain('pending');
  await gw.rest('POST', `/api/v1/approvals/${id}/approve`);
  await exec;
  await row.getByRole('button', { name: 'Deny' }).click();
  await expect.poll(textOf(row.getByRole('alert')), POLL).toContain('Already decided elsewhere');
  await expect.poll(textOf(row), POLL).toContain('approved');
  expect(await textOf(page.locator('#status'))()).not.toContain('failed');
  await page.unroute('**/api/v1/approvals/stream');
}, 60_000);

it("shows each tool's annotations and tool_policy's verdict on its server's page", async () => {
  await page.goto(`${gw.url}/ui/servers/mut`);
  await ready();
  const wipe = page.getByRole('row').filter({ hasText: /^wipe/ });
  await expect.poll(textOf(wipe), POLL).toContain('destructive');
  expect(await textOf(wipe)()).toContain('ask');
  expect(await textOf(wipe)()).toContain('annotated destructive');
  const peek = page.getByRole('row').filter({ hasText: /^peek/ });
  expect(await textOf(peek)()).toContain('read-only');
  expect(await textOf(peek)()).toContain('allow');
  expect(await textOf(peek)()).toContain('default');
  await shot('-server');
  expect(cspViolations).toEqual([]);
}, 60_000);

it('names the argument keys an approval over 64 KiB leaves out and links the whole JSON (issue 33, item 4)', async () => {
  await page.goto(`${gw.url}/ui/approvals`);
  await ready();
  const exec = gw.rest('POST', '/api/v1/code/exec', {
    code: "call_tool('mut', 'wipe', { path: '/srv/big', big: 'z'.repeat(70000) })",
  });
  const row = pendingRow('/srv/big');
  await expect.poll(textOf(row), POLL).toContain('Not shown above');
  expect(await textOf(row)()).toContain('(the arguments are over 64 KiB): big.');
  const link = row.getByRole('link', { name: 'Whole arguments (JSON)' });
  const href = (await link.getAttribute('href')) ?? '';
  expect(href).toMatch(/^\/api\/v1\/approvals\/[0-9a-z]+\/args$/);
  // The link works with the dashboard's own session (no API key).
  const whole = await page.request.get(`${gw.url}${href}`);
  expect(whole.status()).toBe(200);
  expect(await whole.json()).toEqual({ big: 'z'.repeat(70000), path: '/srv/big' });
  await row.getByRole('button', { name: 'Deny' }).click();
  expect((await exec).json.value).toMatchObject({ ok: false });
}, 60_000);

it('shows a held Playground run as waiting for its approval, with a link to Approvals', async () => {
  await page.goto(`${gw.url}/ui/playground`);
  await ready();
  await page
    .getByRole('textbox', { name: 'Code', exact: true })
    .fill("call_tool('mut', 'wipe', { path: '/srv/playground' }).ok");
  await page.getByRole('button', { name: 'Run' }).click();
  const result = page.getByRole('region', { name: 'Result' });
  await expect.poll(textOf(result), POLL).toContain('Waiting for approval');
  const items = (await gw.rest('GET', '/api/v1/approvals?status=pending')).json.items;
  const held = items.find((a: { args?: { path?: string } }) => a.args?.path === '/srv/playground');
  expect(await textOf(result)()).toContain(`Waiting for approval ${held.id} of mut.wipe`);
  // The link names the approval: its row on the Approvals page, marked.
  const link = result.getByRole('link', { name: 'Approvals' });
  expect(await link.getAttribute('href')).toBe(`/ui/approvals#approval-${held.id}`);
  const approvals = await page.context().newPage();
  try {
    await approvals.goto(`${gw.url}${await link.getAttribute('href')}`);
    await approvals.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
    const linked = approvals.locator('tr.linked');
    expect(await linked.getAttribute('data-id')).toBe(held.id);
    expect(await textOf(linked)()).toContain('/srv/playground');
  } finally {
    await approvals.close();
  }
  await gw.rest('POST', `/api/v1/approvals/${held.id}/approve`, {});
  await expect.poll(textOf(result), POLL).toContain('true');
}, 60_000);
