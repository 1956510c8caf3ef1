/**
 * @module The run's shared headless Chromium (test/setup/chromium.ts) signed in to a running
 * gateway's dashboard, for the dashboard tests. Each file connects on its own: closing its
 * `browser` closes the contexts it opened and disconnects, the shared Chromium stays up.
 */
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { inject } from 'vitest';
import type { RunningGateway } from './gateway.ts';
import { partValue } from './setup/provided.ts';

/** The text a locator shows now, as a function for `expect.poll`. */
export const textOf = (locator: Locator) => async () => (await locator.textContent()) ?? '';

/** How long a dashboard step may take on a loaded 2-core machine. */
export const UI_TIMEOUT_MS = 15_000;

/** A connection to the run's shared Chromium; throws the one-line install hint when it is missing. */
export function sharedBrowser(): Promise<Browser> {
  return chromium.connect(partValue(inject('chromium'), 'The shared Chromium (tier browser)'));
}

export interface DashboardSession {
  /** This file's connection to the shared Chromium: `close()` it in afterAll. */
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy complaints the page logged (a test expects none). */
  cspViolations: string[];
}

/** Connects to the shared Chromium, opens a context, signs in to `gw`'s dashboard with the admin key, lands on the Overview (`contextOptions`: e.g. a timezoneId). */
export async function openDashboard(
  gw: RunningGateway,
  contextOptions: BrowserContextOptions = {},
): Promise<DashboardSession> {
  const browser = await sharedBrowser();
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
  await page.waitForURL(/\/ui\/overview/);
  return { browser, context, page, cspViolations };
}
