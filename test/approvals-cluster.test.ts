/**
 * Approvals across instances: two `codemux serve` on one PostgreSQL. A call held on one
 * instance is listed by the other, decided there, and resumes on the first (LISTEN/NOTIFY);
 * a second decision on either instance gets 409.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { writeConfig } from './helpers.ts';
import { ANNOTATED_TOOLS, MUTABLE } from './policy-fixtures.ts';
import { type RunningPostgres, startPostgres } from './postgres.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let postgres: RunningPostgres;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  const databaseUrl = await postgres.database('approvals_cluster');
  for (const id of ['alpha', 'bravo']) {
    const file = writeConfig({});
    const toolsFile = path.join(path.dirname(file), 'tools.json');
    fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
    fs.writeFileSync(
      file,
      JSON.stringify({
        api_key: 'approvals-cluster-key',
        database_url: databaseUrl,
        instance_id: id,
        tool_pinning: 'off',
        code_execution_pool_size: 2,
        tool_policy: { approval_timeout_ms: 60_000 },
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
    const g = await startGateway(file);
    await waitUntilReady(g);
    gateways.push(g);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await postgres?.stop();
}, 60_000);

async function pendingOn(g: RunningGateway): Promise<Json[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const items = (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items;
    if (items.length > 0 || Date.now() > deadline) return items;
    await new Promise((r) => setTimeout(r, 25));
  }
}

it.each([
  ['approve', true, 'wipe:{"path":"/c"}'],
  ['deny', false, 'mut.wipe was denied by admin'],
] as const)(
  'a decision (%s) on the other instance resumes the held call',
  async (decision, ok, text) => {
    const [alpha, bravo] = gateways as [RunningGateway, RunningGateway];
    const run = alpha.rest('POST', '/api/v1/code/exec', {
      code: "const r = call_tool('mut','wipe',{path:'/c'}); r.ok ? r.result.content[0].text : r.error.message",
    });
    const [approval] = await pendingOn(bravo);
    expect(approval).toMatchObject({ server: 'mut', tool: 'wipe', instance_id: 'alpha' });
    const decided = await bravo.rest('POST', `/api/v1/approvals/${approval.id}/${decision}`);
    expect(decided.status).toBe(200);
    const body = (await run).json;
    expect(body.value).toBe(text);
    expect(ok).toBe(decision === 'approve');
    // The first decision wins on every instance.
    const again = await alpha.rest('POST', `/api/v1/approvals/${approval.id}/approve`);
    expect(again.status).toBe(409);
    expect((await alpha.rest('GET', `/api/v1/approvals/${approval.id}`)).json.decided_by).toBe(
      'admin',
    );
  },
);
