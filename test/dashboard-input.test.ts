/**
 * Upstream input requests on the dashboard, in headless Chromium against a real `codemux serve`
 * whose upstream asks for input in the middle of a call: the request appears live in the
 * Approvals page's "Input" section as a form built from the server's schema; sending it answers
 * the server (the schema's default filled in), declining it tells the server so.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { ROOT, writeConfig } from './helpers.ts';

const POLL = { timeout: UI_TIMEOUT_MS };
const ASKING = path.join(ROOT, 'test', 'fixtures', 'asking-server.mjs');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let gw: RunningGateway;
let browser: Browser;
let page: Page;
let cspViolations: string[];

beforeAll(async () => {
  gw = await startGateway(
    writeConfig({
      tool_policy: { approval_timeout_ms: 60_000 },
      mcpServers: [{ name: 'ask', command: process.execPath, args: [ASKING, 'modern'] }],
    }),
  );
  await waitUntilReady(gw);
  ({ browser, page, cspViolations } = await openDashboard(gw));
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Approvals' })
    .click();
  await page.getByRole('heading', { level: 2, name: 'Input' }).waitFor();
  await page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const signUp = () =>
  gw.rest('POST', '/api/v1/code/exec', { code: "call_tool('ask','sign_up',{})" });
/** The pending request's item, once the page shows one (the newest first). */
const pendingItem = () =>
  page.getByRole('list', { name: 'Input requests' }).locator('li[data-status="pending"]').first();

it('shows the request live as a form and sends the answer; the default fills the field left as it was', async () => {
  const exec = signUp();
  const item = pendingItem();
  await expect.poll(textOf(item), POLL).toContain('ask.sign_up asks');
  expect(await textOf(item)()).toContain('sign_up needs your name');
  // The navigation counts it with the approvals (its accessible name still starts with "Approvals").
  await page.reload();
  await page.getByRole('heading', { level: 2, name: 'Input' }).waitFor();
  expect(
    await textOf(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }),
    )(),
  ).toBe('Approvals (1)');
  await expect.poll(textOf(item), POLL).toContain('ask.sign_up asks');
  await item.getByLabel('Name (required)').fill('Ada Lovelace');
  expect(await item.getByLabel('Age').inputValue()).toBe('30');
  await item.getByRole('button', { name: 'Send' }).click();
  const answer = await exec;
  expect(answer.json.value.result.content[0].text).toBe(
    `signed up name sha256:${sha('Ada Lovelace')} (age 30)`,
  );
  const done = page
    .getByRole('list', { name: 'Input requests' })
    .locator('li[data-status="answered"]')
    .first();
  await expect.poll(textOf(done), POLL).toContain('by admin via dashboard');
  expect(await done.getByRole('button').count()).toBe(0);
}, 60_000);

it('declines: the server is told and the program gets its answer', async () => {
  const exec = signUp();
  const item = pendingItem();
  await expect.poll(textOf(item), POLL).toContain('ask.sign_up asks');
  await item.getByRole('button', { name: 'Decline' }).click();
  const answer = await exec;
  expect(answer.json.value).toMatchObject({
    ok: false,
    error: {
      code: 'TOOL_ERROR',
      message: 'sign_up: the user declined to give a name; nobody was signed up',
    },
  });
  expect(cspViolations).toEqual([]);
}, 60_000);
