/**
 * The dashboard's Tools pages and a stored script's page, in headless Chromium against a real
 * `codemux serve` over the mutable server (tool_policy denies `wipe` and asks for `publish`),
 * through accessible names; and the REST routes they read, with their refusals.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, textOf, UI_TIMEOUT_MS } from './dashboard-session.ts';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { policyConfig } from './policy-fixtures.ts';
import { docShot } from './screenshots.ts';

const POLL = { timeout: UI_TIMEOUT_MS };
const PATH_SCHEMA = { type: 'object', properties: { path: { type: 'string' } } };
const TOOLS = [
  {
    name: 'create_note',
    description: 'Put a sticky note on the board',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'the heading' },
        priority: { type: 'integer' },
        urgent: { type: 'boolean' },
        color: { enum: ['yellow', 'pink'] },
        tags: { type: 'array', items: { type: 'string' } },
        pinned: { type: 'boolean', default: true },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['title'],
    },
    annotations: { idempotentHint: true },
  },
  { name: 'wipe', description: 'Wipe a path', inputSchema: PATH_SCHEMA },
  { name: 'publish', description: 'Publish a path', inputSchema: PATH_SCHEMA },
  { name: 'ping', description: 'Answer at once', inputSchema: { type: 'object' } },
];

/** The Tools, tool and script pages' screenshots, for docs/dashboard.md. */
const SHOTS: Record<string, string> = {
  '-search': 'tools',
  '-try': 'tool',
  '-waiting': 'tool-waiting',
  '-script': 'script',
};
const shot = (suffix: string) => docShot(page, SHOTS[suffix]!);

let gw: RunningGateway;
let browser: Browser;
let page: Page;
let cspViolations: string[];

beforeAll(async () => {
  const config = policyConfig(
    {
      tool_policy: {
        rules: [
          { server: 'mut', tool: 'wipe', action: 'deny' },
          { server: 'mut', tool: 'publish', action: 'ask' },
        ],
      },
    },
    TOOLS,
  );
  const scripts = path.join(path.dirname(config), 'scripts');
  fs.mkdirSync(scripts);
  fs.writeFileSync(path.join(scripts, 'greet.js'), 'return { hello: input.name };\n');
  gw = await startGateway(config);
  await waitUntilReady(gw);
  ({ browser, page, cspViolations } = await openDashboard(gw));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  if (gw) fs.rmSync(path.dirname(gw.configFile), { recursive: true, force: true });
});

const see = (locator: Locator) => ({
  toContainText: (want: string) => expect.poll(textOf(locator), POLL).toContain(want),
});

/** Opens a dashboard path and waits for its client module to have loaded its data. */
async function open(route: string): Promise<void> {
  await page.goto(`${gw.url}${route}`);
  await page.locator('main[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
}

const result = () => page.getByRole('region', { name: 'Result' });

describe('the tools REST routes', () => {
  it('searches with the catalog index, or lists every tool by name', async () => {
    const found = await gw.rest('GET', '/api/v1/tools?query=sticky');
    expect(found.status).toBe(200);
    expect(found.json.items[0]).toEqual({
      server: 'mut',
      tool: 'create_note',
      description: 'Put a sticky note on the board',
      annotations: { idempotentHint: true },
    });
    const all = await gw.rest('GET', '/api/v1/tools');
    expect(all.json.items.map((t: { tool: string }) => t.tool)).toEqual([
      'create_note',
      'ping',
      'publish',
      'received',
      'relist',
      'wipe',
    ]);
    expect(all.json.has_more).toBe(false);
    const two = await gw.rest('GET', '/api/v1/tools?limit=2');
    expect([two.json.items.length, two.json.has_more]).toEqual([2, true]);
  });

  it('describes a tool with its signature, schema and policy verdict', async () => {
    const answer = await gw.rest('GET', '/api/v1/tools/mut/publish');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      server: 'mut',
      tool: 'publish',
      description: 'Publish a path',
      input_schema: PATH_SCHEMA,
      policy: { action: 'ask', reason: 'rule 2' },
    });
    expect(answer.json.signature).toContain('declare function mut_publish(args: {');
  });

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 200 (got "0")'],
    ['limit=201', 'limit must be an integer from 1 to 200 (got "201")'],
    ['limit=ten', 'limit must be an integer from 1 to 200 (got "ten")'],
    [`query=${'x'.repeat(513)}`, 'query must be at most 512 characters (got 513)'],
  ])('refuses %s with 400 naming the field', async (params, message) => {
    const answer = await gw.rest('GET', `/api/v1/tools?${params}`);
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('INVALID_REQUEST');
    expect(answer.json.error.message).toContain(message);
  });

  it('answers 404 for an unknown tool with a did-you-mean, and leaves /tools/held alone', async () => {
    const answer = await gw.rest('GET', '/api/v1/tools/mut/create_not');
    expect(answer.status).toBe(404);
    expect(answer.json.error.message).toBe(
      'no tool "mut.create_not"; did you mean `mut.create_note`?',
    );
    const held = await gw.rest('GET', '/api/v1/tools/held');
    expect([held.status, held.json]).toEqual([200, { items: [] }]);
  });

  it('refuses an agent token', async () => {
    const created = await gw.rest('POST', '/api/v1/tokens', {
      name: 'tools-agent',
      servers: ['mut'],
    });
    const headers = { 'x-api-key': created.json.value.token };
    for (const route of ['/api/v1/tools', '/api/v1/tools/mut/ping']) {
      const answer = await gw.rest('GET', route, undefined, headers);
      expect([route, answer.status, answer.json.error.code]).toEqual([route, 403, 'FORBIDDEN']);
    }
    await gw.rest('DELETE', '/api/v1/tokens/tools-agent');
  });
});

describe('the Tools pages', () => {
  it('searches by a word of a description; the URL carries the query', async () => {
    await open('/ui/servers');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Tools', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Tools' }).waitFor();
    await page.getByLabel('Search', { exact: true }).fill('sticky');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/ui\/tools\?q=sticky$/);
    const rows = page.getByRole('table', { name: 'Tools' }).getByRole('row');
    await see(rows.nth(1)).toContainText('create_note');
    expect(await textOf(rows.nth(1))()).toContain('idempotent');
    expect(await page.getByLabel('Search', { exact: true }).inputValue()).toBe('sticky');
    await shot('-search');
  });

  it("shows a tool's signature and input schema", async () => {
    await page.getByRole('link', { name: 'create_note' }).click();
    await page.waitForURL(/\/ui\/tools\/mut\/create_note$/);
    await page.locator('main[data-ready="true"]').waitFor();
    await see(page.getByLabel('Signature')).toContainText(
      'declare function mut_create_note(args: {',
    );
    expect(await textOf(page.getByLabel('Signature'))()).toContain('title: string');
    expect(await textOf(page.getByLabel('Input schema'))()).toContain('"priority"');
    expect(await textOf(page.locator('#facts'))()).toContain('allow');
  });

  it('tries a tool with values from its form and shows the result', async () => {
    await page.getByLabel('title', { exact: true }).fill('Groceries');
    await page.getByLabel('priority', { exact: true }).fill('3');
    await page.getByLabel('urgent', { exact: true }).selectOption({ label: 'true' });
    await page.getByLabel('color', { exact: true }).selectOption({ label: 'pink' });
    await page.getByLabel('tags', { exact: true }).fill('["home"]');
    // An optional boolean can be sent false (its default is true); an Optional[str] is text.
    await page.getByLabel('pinned', { exact: true }).selectOption({ label: 'false' });
    await page.getByLabel('note', { exact: true }).fill('milk');
    await page.getByRole('button', { name: 'Try' }).click();
    await see(result()).toContainText('create_note:{');
    const shown = await textOf(result())();
    expect(shown).toContain('Result');
    await shot('-try');
    expect(shown).toContain(
      String.raw`create_note:{\"title\":\"Groceries\",\"priority\":3,\"urgent\":true,\"color\":\"pink\",\"tags\":[\"home\"],\"pinned\":false,\"note\":\"milk\"}`,
    );
  });

  it('sends "Arguments (JSON)" for a tool whose schema names no property', async () => {
    await open('/ui/tools/mut/ping');
    await page.getByLabel('Arguments (JSON)').fill('{"loud": true}');
    await page.getByRole('button', { name: 'Try' }).click();
    await see(result()).toContainText(String.raw`ping:{\"loud\":true}`);
  });

  it('shows POLICY_DENIED for a tool the policy denies', async () => {
    await open('/ui/tools/mut/wipe');
    await see(page.locator('#facts')).toContainText('deny');
    await page.getByLabel('path', { exact: true }).fill('/srv');
    await page.getByRole('button', { name: 'Try' }).click();
    await see(result()).toContainText('POLICY_DENIED');
    expect(await textOf(result())()).toContain('mut.wipe is denied by tool_policy (rule 1)');
  });

  it('says it waits for approval on an ask tool, then shows the result once approved', async () => {
    await open('/ui/tools/mut/publish');
    await page.getByLabel('path', { exact: true }).fill('/srv/site');
    await page.getByRole('button', { name: 'Try' }).click();
    await see(result()).toContainText('Waiting for approval…');
    // Try is off while its call waits: a second click cannot ask twice.
    expect(await page.getByRole('button', { name: 'Try' }).isDisabled()).toBe(true);
    await shot('-waiting');
    expect(await result().getByRole('link', { name: 'Approvals' }).getAttribute('href')).toBe(
      '/ui/approvals',
    );
    let pending: { id: string; args_sha256: string } | undefined;
    await expect
      .poll(async () => {
        const items = (await gw.rest('GET', '/api/v1/approvals?status=pending')).json.items;
        pending = items.find((a: { tool: string }) => a.tool === 'publish');
        return pending !== undefined;
      }, POLL)
      .toBe(true);
    const decided = await gw.rest('POST', `/api/v1/approvals/${pending!.id}/approve`, {
      args_sha256: pending!.args_sha256,
    });
    expect(decided.status).toBe(200);
    await see(result()).toContainText(String.raw`publish:{\"path\":\"/srv/site\"}`);
    const asked = (await gw.rest('GET', '/api/v1/approvals')).json.items as { tool: string }[];
    expect(asked.filter((a) => a.tool === 'publish')).toHaveLength(1);
    expect(await textOf(result())()).not.toContain('Waiting');
  });
});

describe("a stored script's page", () => {
  it('shows the source read only and runs it with the given input', async () => {
    await open('/ui/scripts');
    await page.getByRole('table', { name: 'Scripts' }).getByRole('link', { name: 'greet' }).click();
    await page.waitForURL(/\/ui\/scripts\/greet$/);
    await page.locator('main[data-ready="true"]').waitFor();
    const source = page.getByRole('textbox', { name: 'Source' });
    await see(source).toContainText('return { hello: input.name };');
    expect(await source.getAttribute('aria-readonly')).toBe('true');
    await page.getByLabel('Input', { exact: true }).fill('{"name": "Ada"}');
    await page.getByRole('button', { name: 'Run' }).click();
    await see(result()).toContainText('"hello": "Ada"');
    expect(await textOf(result())()).toContain('Value');
    await shot('-script');
    expect(cspViolations).toEqual([]);
  });
});
