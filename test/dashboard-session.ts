/** @module Headless Chromium signed in to a running gateway's dashboard, for the dashboard tests. */
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import type { RunningGateway } from './gateway.ts';
import { chromiumPath } from './system-parts.ts';

/** The text a locator shows now, as a function for `expect.poll`. */
export const textOf = (locator: Locator) => async () => (await locator.textContent()) ?? '';

/** How long a dashboard step may take on a loaded 2-core machine. */
export const UI_TIMEOUT_MS = 15_000;

export interface DashboardSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy complaints the page logged (a test expects none). */
  cspViolations: string[];
}

/** Launches Chromium, signs in to `gw`'s dashboard with the admin key, lands on Servers (`contextOptions`: e.g. a timezoneId). */
export async function openDashboard(
  gw: RunningGateway,
  contextOptions: BrowserContextOptions = {},
): Promise<DashboardSession> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.goto(`${gw.url}/ui/`);
  await page.getByLabel('API key').fill(gw.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/ui\/servers/);
  return { browser, context, page, cspViolations };
}
