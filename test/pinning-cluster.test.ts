/**
 * Tool pinning across instances: two `codemux serve` on one PostgreSQL, each with its own
 * child of the same mutable server. A tool held on both is approved on one; the other
 * releases it once the change notice arrives (LISTEN/NOTIFY), without a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { ROOT, settle, writeConfig } from './helpers.ts';
import { type SharedPostgres, sharedPostgres } from './shared-postgres.ts';

const MUTABLE = path.join(ROOT, 'test', 'fixtures', 'mutable-server.mjs');
const SCHEMA = { type: 'object', properties: { text: { type: 'string' } } };
const echo = (description: string) => ({ name: 'echo', description, inputSchema: SCHEMA });

let postgres: SharedPostgres;
let toolsFile: string;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  postgres = sharedPostgres();
  const databaseUrl = await postgres.database('pins_cluster');
  for (const id of ['alpha', 'bravo']) {
    const file = writeConfig({});
    toolsFile ??= path.join(path.dirname(file), 'tools.json');
    fs.writeFileSync(toolsFile, JSON.stringify([echo('Echo v1')]));
    fs.writeFileSync(
      file,
      JSON.stringify({
        api_key: 'pins-cluster-key',
        database_url: databaseUrl,
        instance_id: id,
        code_execution_pool_size: 2,
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
    // One after the other: the first pins the server's first tool list, the second finds it.
    const g = await startGateway(file);
    await waitUntilReady(g);
    gateways.push(g);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await postgres?.drop();
}, 60_000);

const call = async (g: RunningGateway) =>
  (await g.rest('POST', '/api/v1/code/exec', { code: "call_tool('mut','echo',{text:'x'})" })).json
    .value;

const until = (check: () => Promise<boolean>): Promise<boolean> =>
  settle(check, (held) => held, 20_000, 25);

it('an approval on one instance releases the held tool on the other', async () => {
  const [alpha, bravo] = gateways as [RunningGateway, RunningGateway];
  expect((await call(alpha)).ok).toBe(true);
  expect((await call(bravo)).ok).toBe(true);
  fs.writeFileSync(toolsFile, JSON.stringify([echo('Echo v2')]));
  for (const g of gateways)
    await g.rest('POST', '/api/v1/code/exec', { code: "call_tool('mut','relist',{})" });
  for (const g of gateways) {
    expect(
      await until(async () => (await g.rest('GET', '/api/v1/tools/held')).json.items.length === 1),
    ).toBe(true);
    expect((await call(g)).error.code).toBe('TOOL_CHANGED');
  }
  const [shown] = (await alpha.rest('GET', '/api/v1/tools/held')).json.items;
  const approved = await alpha.rest('POST', '/api/v1/servers/mut/tools/echo/approve', {
    sha256: shown.sha256,
  });
  expect(approved.status).toBe(200);
  expect((await call(alpha)).ok).toBe(true);
  const at = Date.now();
  expect(await until(async () => (await call(bravo)).ok === true)).toBe(true);
  // Shown, not asserted (a shared machine): DESIGN's target is within a second.
  console.log(`bravo released the approved tool ${Date.now() - at} ms after alpha's approval`);
  expect((await bravo.rest('GET', '/api/v1/tools/held')).json.items).toEqual([]);
}, 60_000);
