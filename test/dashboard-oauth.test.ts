/**
 * Signing in to an OAuth-protected upstream from the dashboard's Servers page, in headless
 * Chromium against a real `codemux serve`, a real authorization server (oidc-provider) and a
 * protected MCP server, all on 127.0.0.1: the "Sign in" button's window goes through the
 * authorization server to the gateway's callback, and the page follows the outcome.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './fixtures/oauth/authorization-server.ts';
import {
  type ProtectedMcpServer,
  startProtectedMcpServer,
} from './fixtures/oauth/protected-mcp-server.ts';
import { type RunningGateway, startGateway } from './gateway.ts';
import { SERVERS, settle, writeConfig } from './helpers.ts';

/** Generous: a loaded 2-core machine runs several suites at once. */
const POLL = { timeout: UI_TIMEOUT_MS };
/** Set to a file name (….png) to keep screenshots: the Servers page, a callback page, the outcome. */
const SHOT = process.env.CODEMUX_OAUTH_SHOT;
const shot = async (suffix = '', target: Page = page) => {
  if (SHOT)
    await target.screenshot({
      path: SHOT.replace(/\.png$/, `${suffix}.png`),
      fullPage: true,
      caret: 'initial',
    });
};

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let as: AuthorizationServer;
let mcp: ProtectedMcpServer;
let gw: RunningGateway;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cspViolations: string[];

const stateOf = async (name: string): Promise<string | undefined> =>
  (await gw.rest('GET', '/api/v1/servers')).json.value.servers.find((s: Json) => s.name === name)
    ?.state;

/** Waits until `name` is in `state` (expect.poll works inside tests only). */
async function waitForState(name: string, state: string, ms = 20_000): Promise<void> {
  const now = await settle(
    () => stateOf(name),
    (s) => s === state,
    ms,
  );
  if (now !== state) throw new Error(`${name} never became ${state}:\n${gw.output()}`);
}

beforeAll(async () => {
  as = await startAuthorizationServer({ accessTokenTtlSeconds: 3600 });
  mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
  gw = await startGateway(
    writeConfig({ mcpServers: [SERVERS.fixture, { name: 'secured', url: mcp.url }] }),
  );
  await waitForState('fixture', 'ready');
  await waitForState('secured', 'needs_auth');
  ({ browser, context, page, cspViolations } = await openDashboard(gw));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mcp?.close();
  await as?.close();
  if (gw) fs.rmSync(path.dirname(gw.configFile), { recursive: true, force: true });
});

const ready = () => page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
const status = () => page.locator('#status');
/** A server's row on the Servers page, found by its row header (the server's name). */
const serverRow = (name: string) =>
  page
    .getByRole('table', { name: 'Servers' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) });
/** The row's state: its first data cell (the name is the row header). */
const stateCell = (name: string) => serverRow(name).getByRole('cell').first();

/** Clicks "Sign in" on `secured`'s row; the window it opens, once it reached the gateway's callback. */
async function signInThroughPopup(): Promise<Page> {
  const authorizations = as.counts.authorizations;
  const opened = context.waitForEvent('page', { timeout: UI_TIMEOUT_MS });
  await serverRow('secured').getByRole('button', { name: 'Sign in' }).click();
  const popup = await opened;
  await popup.waitForURL((url) => url.pathname === '/oauth/callback', { timeout: UI_TIMEOUT_MS });
  expect(new URL(popup.url()).origin).toBe(gw.url);
  // The window went through the authorization server's authorization endpoint.
  expect(as.counts.authorizations).toBeGreaterThan(authorizations);
  return popup;
}

it('shows the protected server as needs_auth with a "Sign in" button; a stdio server has none', async () => {
  await page.goto(`${gw.url}/ui/servers`);
  await ready();
  await expect.poll(textOf(stateCell('secured')), POLL).toContain('needs_auth');
  expect(await serverRow('secured').getByRole('button', { name: 'Sign in' }).count()).toBe(1);
  expect(await textOf(stateCell('fixture'))()).toContain('ready');
  expect(await serverRow('fixture').getByRole('button', { name: 'Sign in' }).count()).toBe(0);
  await shot();
}, 60_000);

it('says why when the authorization server refuses: the callback page, the status line, still needs_auth', async () => {
  as.denyNext('access_denied', 'the user said no');
  const popup = await signInThroughPopup();
  await popup.getByRole('heading', { name: 'Sign-in to secured failed' }).waitFor();
  expect(await textOf(popup.locator('body'))()).toContain('access_denied');
  await shot('-denied-callback', popup);
  await popup.close();
  await expect.poll(textOf(status()), POLL).toContain('access_denied');
  expect(await textOf(status())()).toContain('the sign-in to secured failed');
  expect(await status().getAttribute('class')).toContain('error');
  expect(await stateOf('secured')).toBe('needs_auth');
  expect(await textOf(stateCell('secured'))()).toContain('needs_auth');
  expect(await serverRow('secured').getByRole('button', { name: 'Sign in' }).count()).toBe(1);
  await shot('-denied');
}, 60_000);

it('signs in through the window it opens: the callback says so, the row becomes ready without a reload', async () => {
  const popup = await signInThroughPopup();
  await popup.getByRole('heading', { name: 'Signed in to secured' }).waitFor();
  await shot('-callback', popup);
  await popup.close();
  await expect.poll(textOf(status()), POLL).toContain('signed in to secured');
  await expect.poll(textOf(stateCell('secured')), POLL).toContain('ready');
  expect(await serverRow('secured').getByRole('button', { name: 'Sign in' }).count()).toBe(0);
  expect(await status().getAttribute('class')).not.toContain('error');
  const call = await gw.rest('POST', '/api/v1/code/exec', {
    code: "return call_tool('secured', 'whoami', {})",
  });
  expect(JSON.stringify(call.json)).toContain(as.accountId);
  await shot('-signed-in');
  expect(cspViolations).toEqual([]);
}, 60_000);
