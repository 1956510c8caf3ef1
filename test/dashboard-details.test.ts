/**
 * The dashboard's small things a user notices (issue 24, item 5), in headless Chromium against a
 * real `codemux serve`: Copy buttons, Save's confirmation beside Save, row buttons on one line,
 * Sign out on the navigation's baseline, descriptions in the body font.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { SERVERS, writeConfig } from './helpers.ts';

const POLL = { timeout: UI_TIMEOUT_MS };
/** How far apart two things may be and still look aligned. */
const ALIGN_TOLERANCE_PX = 2;

/** Set to a file name (….png) to keep screenshots of the pages checked here. */
const SHOT = process.env.CODEMUX_DETAILS_SHOT;
const shot = async (suffix: string, target: Page = page) => {
  if (SHOT)
    await target.screenshot({
      path: SHOT.replace(/\.png$/, `${suffix}.png`),
      fullPage: true,
      caret: 'initial',
    });
};

let gw: RunningGateway;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cspViolations: string[];

beforeAll(async () => {
  gw = await startGateway(writeConfig({ mcpServers: [SERVERS.fixture] }));
  await waitUntilReady(gw);
  await gw.rest('POST', '/api/v1/code-tools', {
    name: 'greet',
    description: 'Greets someone by name',
  });
  await gw.rest('POST', '/api/v1/code-tools/greet/params', {
    name: 'who',
    type: 'string',
    description: 'the name to greet',
  });
  ({ browser, context, page, cspViolations } = await openDashboard(gw));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  if (gw) fs.rmSync(path.dirname(gw.configFile), { recursive: true, force: true });
});

/** Opens a dashboard path and waits for its client module to have loaded its data. */
async function open(route: string, target: Page = page): Promise<void> {
  await target.goto(`${gw.url}${route}`);
  await target.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error(`${locator} has no box`);
  return found;
}

/** The box of `locator`'s glyphs (not its element's): where its text sits on the line. */
const textBox = (locator: Locator) =>
  // biome-ignore format: DOM types are not in this tsconfig
  locator.evaluate((element) => {
    // @ts-expect-error document exists in the page
    const range = document.createRange();
    range.selectNodeContents(element);
    const { top, bottom } = range.getBoundingClientRect();
    return { top: top as number, bottom: bottom as number };
  });

describe('Copy buttons', () => {
  it("copies a new token's secret to the clipboard from the Copy button beside it", async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    await open('/ui/tokens');
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('copied');
    await form.getByRole('group', { name: 'Servers' }).getByLabel('fixture').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByLabel('Token secret', { exact: true });
    await expect.poll(textOf(secret), POLL).toMatch(/\S{20,}/);
    const copy = page.getByRole('button', { name: 'Copy token' });
    expect(await copy.textContent()).toBe('Copy');
    const [s, c] = [await box(secret), await box(copy)];
    expect(c.x).toBeGreaterThanOrEqual(s.x + s.width);
    expect(c.y).toBeLessThan(s.y + s.height);
    await copy.click();
    await expect.poll(textOf(page.getByRole('status')), POLL).toBe('Copied.');
    // Expressions as strings: this tsconfig has no DOM types.
    const pasted = await page.evaluate('navigator.clipboard.readText()');
    expect(pasted).toBe((await secret.textContent())?.trim());
    await shot('-token');
  });

  it("selects the key file's path for Ctrl+C where the browser allows no clipboard access", async () => {
    const ctx = await browser.newContext();
    try {
      const signIn = await ctx.newPage();
      await signIn.goto(`${gw.url}/ui/`);
      const copy = signIn.getByRole('button', { name: 'Copy key file path' });
      await copy.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      // As over http on a host other than localhost: no navigator.clipboard at all.
      await signIn.evaluate(
        "Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined })",
      );
      await copy.click();
      await expect.poll(() => signIn.evaluate('String(getSelection())'), POLL).toBe('data/api_key');
      await expect.poll(textOf(signIn.getByRole('status')), POLL).toContain('press Ctrl+C');
      await shot('-sign-in', signIn);
    } finally {
      await ctx.close();
    }
  });
});

describe('layout', () => {
  it("shows Save's confirmation inside the form, beside the Save button", async () => {
    await open('/ui/code-tools/greet');
    const configure = page.getByRole('form', { name: 'Configure' });
    const save = configure.getByRole('button', { name: 'Save', exact: true });
    await save.click();
    const saved = configure.getByRole('status');
    await expect.poll(textOf(saved), POLL).toContain('Saved version');
    const [b, s] = [await box(save), await box(saved)];
    expect(s.x).toBeGreaterThan(b.x + b.width);
    expect(s.y).toBeGreaterThanOrEqual(b.y);
    expect(s.y + s.height).toBeLessThanOrEqual(b.y + b.height);
    await shot('-saved');
  });

  it("keeps a row's Edit and Delete on one line, centred with the row's text", async () => {
    await open('/ui/code-tools/greet');
    const row = page.getByRole('table', { name: 'Parameters' }).getByRole('row', { name: /who/ });
    const edit = await box(row.getByRole('button', { name: 'Edit who' }));
    const del = await box(row.getByRole('button', { name: 'Delete who' }));
    expect(Math.abs(edit.y - del.y)).toBeLessThanOrEqual(ALIGN_TOLERANCE_PX);
    expect(del.x).toBeGreaterThan(edit.x + edit.width);
    const words = await textBox(row.getByRole('cell', { name: 'the name to greet' }));
    const middle = edit.y + edit.height / 2;
    expect(Math.abs(middle - (words.top + words.bottom) / 2)).toBeLessThanOrEqual(
      ALIGN_TOLERANCE_PX,
    );
    await shot('-code-tool');

    await open('/ui/servers');
    const server = page
      .getByRole('table', { name: 'Servers' })
      .getByRole('row', { name: /fixture/ });
    const tops = await Promise.all((await server.getByRole('button').all()).map(box));
    expect(tops.length).toBeGreaterThan(1);
    for (const b of tops)
      expect(Math.abs(b.y - tops[0]!.y)).toBeLessThanOrEqual(ALIGN_TOLERANCE_PX);
    await shot('-servers');
  });

  it("puts Sign out's text on the navigation links' baseline", async () => {
    await open('/ui/servers');
    const link = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Tools', exact: true });
    const signOut = page.getByRole('button', { name: 'Sign out' });
    // One font and size: glyph boxes ending level means one baseline.
    const [l, s] = [await textBox(link), await textBox(signOut)];
    expect(Math.abs(l.bottom - s.bottom)).toBeLessThanOrEqual(ALIGN_TOLERANCE_PX);
  });

  it('writes descriptions in the body font, and JSON input in the code font', async () => {
    const font = (locator: Locator) =>
      // @ts-expect-error getComputedStyle exists in the page
      locator.evaluate((element) => getComputedStyle(element).fontFamily as string);
    await open('/ui/code-tools/greet');
    const body = await font(page.locator('body'));
    expect(await font(page.getByRole('textbox', { name: 'Description' }))).toBe(body);
    expect(await font(page.getByRole('cell', { name: 'the name to greet' }))).toBe(body);
    await open('/ui/code-tools');
    await page.getByRole('button', { name: 'New code tool' }).click();
    const dialog = page.getByRole('dialog', { name: 'New code tool' });
    expect(await font(dialog.getByLabel('Description'))).toBe(body);
    await open('/ui/playground');
    expect(await font(page.getByRole('textbox', { name: 'Input' }))).not.toBe(body);
  });

  it('breaks no Content-Security-Policy rule on the pages above', () => {
    expect(cspViolations).toEqual([]);
  });
});
