/**
 * The Approvals page when tool_policy.approval_channels leaves out "dashboard" (issue 33,
 * item 8), in headless Chromium against a real `codemux serve`: a held call shows without
 * Approve and Deny, and the page says the channel is off and names the setting; a page made
 * while the channel was open drops its buttons at the first refused click after the config
 * closed it. The Playground names only the ways to decide that are open.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { policyConfig } from './policy-fixtures.ts';

const POLL = { timeout: UI_TIMEOUT_MS };

let gw: RunningGateway;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  gw = await startGateway(
    policyConfig({
      tool_policy: { approval_timeout_ms: 600_000, approval_channels: ['rest', 'cli'] },
    }),
  );
  await waitUntilReady(gw);
  ({ browser, page } = await openDashboard(gw));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

const ready = () => page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
const heldExec = (target: string) =>
  gw.rest('POST', '/api/v1/code/exec', {
    code: `call_tool('mut', 'wipe', { path: ${JSON.stringify(target)} })`,
  });
const pendingRow = (target: string) =>
  page
    .getByRole('table', { name: 'Pending approvals' })
    .getByRole('row')
    .filter({ hasText: target });
const notice = () => page.getByRole('note');

/** The pending approval of `target`, once it is held. */
async function pendingId(target: string): Promise<string> {
  let id = '';
  await expect
    .poll(async () => {
      const items = (await gw.rest('GET', '/api/v1/approvals?status=pending')).json.items;
      id = items.find((a: { args?: { path?: string } }) => a.args?.path === target)?.id ?? '';
      return id;
    }, POLL)
    .not.toBe('');
  return id;
}

/** Rewrites tool_policy.approval_channels and waits until the dashboard's pages follow it. */
async function setChannels(channels: string[]): Promise<void> {
  const raw = JSON.parse(fs.readFileSync(gw.configFile, 'utf8'));
  fs.writeFileSync(
    gw.configFile,
    JSON.stringify({
      ...raw,
      tool_policy: { ...raw.tool_policy, approval_channels: channels },
    }),
  );
  const want = channels.includes('dashboard') ? 'on' : 'off';
  await expect
    .poll(async () => {
      const html = await (await page.request.get(`${gw.url}/ui/approvals`)).text();
      return /data-decide="(on|off)"/.exec(html)?.[1];
    }, POLL)
    .toBe(want);
}

it('shows a held call without Approve and Deny, and says the dashboard channel is off naming the setting', async () => {
  await page.goto(`${gw.url}/ui/approvals`);
  await ready();
  const said = await textOf(notice())();
  expect(said).toContain('Read only');
  expect(said).toContain('tool_policy.approval_channels');
  expect(said).toContain('add "dashboard"');

  const exec = heldExec('/srv/closed');
  const row = pendingRow('/srv/closed');
  await expect.poll(textOf(row), POLL).toContain('pending');
  expect(await row.getByRole('button').count()).toBe(0);

  // Decided through a channel that is open: the row follows live.
  const id = await pendingId('/srv/closed');
  expect((await gw.rest('POST', `/api/v1/approvals/${id}/deny`)).status).toBe(200);
  await exec;
  await expect.poll(textOf(row), POLL).toContain('denied');
}, 60_000);

it('the Playground names only the open ways to decide a held run: the CLI, not the dashboard', async () => {
  await page.goto(`${gw.url}/ui/playground`);
  await ready();
  await page
    .getByRole('textbox', { name: 'Code', exact: true })
    .fill("call_tool('mut', 'wipe', { path: '/srv/playground' }).ok");
  await page.getByRole('button', { name: 'Run' }).click();
  const result = page.getByRole('region', { name: 'Result' });
  const id = await pendingId('/srv/playground');
  await expect.poll(textOf(result), POLL).toContain(`Waiting for approval ${id}`);
  expect(await textOf(result)()).toContain(
    `Waiting for approval ${id} of mut.wipe: it is shown on Approvals read only (tool_policy.approval_channels leaves out "dashboard"): decide it with codemux approvals approve ${id}.`,
  );
  expect(await result.getByRole('link', { name: 'Approvals' }).getAttribute('href')).toBe(
    `/ui/approvals#approval-${id}`,
  );
  expect((await gw.rest('POST', `/api/v1/approvals/${id}/deny`)).status).toBe(200);
  await expect.poll(textOf(result), POLL).toContain('false');
}, 60_000);

it('drops the buttons of a page made while the channel was open once a click is refused', async () => {
  await setChannels(['rest', 'cli', 'dashboard']);
  await page.goto(`${gw.url}/ui/approvals`);
  await ready();
  expect(await notice().isVisible()).toBe(false);
  const exec = heldExec('/srv/reopened');
  const row = pendingRow('/srv/reopened');
  await expect.poll(textOf(row), POLL).toContain('pending');
  const approve = row.getByRole('button', { name: 'Approve' });
  await approve.waitFor();

  await setChannels(['rest', 'cli']);
  await approve.click();
  await expect.poll(textOf(notice()), POLL).toContain('tool_policy.approval_channels');
  await expect.poll(() => row.getByRole('button').count(), POLL).toBe(0);
  expect(await textOf(row)()).toContain('pending');

  const id = await pendingId('/srv/reopened');
  expect((await gw.rest('POST', `/api/v1/approvals/${id}/deny`)).status).toBe(200);
  await exec;
}, 60_000);
