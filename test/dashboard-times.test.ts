/**
 * Times in the dashboard (issue 33, item 22): a record's page shows its start as the Activity
 * list does, in the reader's local time with the zone named, in headless Chromium set to a
 * zone that is not UTC.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { SERVERS, writeConfig } from './helpers.ts';

const POLL = { timeout: UI_TIMEOUT_MS };
/** Half an hour off any whole-hour zone: a time shown in UTC, or without the zone, cannot pass. */
const ZONE = 'Asia/Kolkata';

let gw: RunningGateway;
let browser: Browser;
let page: Page;

async function open(route: string): Promise<void> {
  await page.goto(`${gw.url}${route}`);
  await page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
}

beforeAll(async () => {
  gw = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  await waitUntilReady(gw);
  ({ browser, page } = await openDashboard(gw, { timezoneId: ZONE, locale: 'en-US' }));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe("a record's page", () => {
  it('shows when it started as the Activity list does: local time, with the zone', async () => {
    const ran = await gw.rest('POST', '/api/v1/code/exec', { code: '6 * 7' });
    expect(ran.status).toBe(200);
    const record = (await gw.rest('GET', '/api/v1/activity?kind=execution&limit=1')).json.items[0];
    // What Chromium's Intl gives for this instant in the zone (Node's ICU agrees on en-US).
    const local = new Date(record.started_at).toLocaleString('en-US', {
      timeZone: ZONE,
      timeZoneName: 'short',
    });
    expect(local).toMatch(/GMT\+5:30|IST/);

    await open('/ui/activity');
    const link = page.locator(`a[href="/ui/activity/${record.id}"]`);
    await expect.poll(textOf(link), POLL).toBe(local);

    await open(`/ui/activity/${record.id}`);
    const started = page.locator('dt:text-is("started_at") + dd');
    await expect.poll(textOf(started), POLL).toBe(local);
    await expect(started.locator('time').getAttribute('datetime')).resolves.toBe(record.started_at);
  });
});
