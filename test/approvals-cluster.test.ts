import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from './gateway.ts';
import { settle } from './helpers.ts';
import { startPolicyCluster } from './policy-fixtures.ts';
import { type SharedPostgres, sharedPostgres } from './shared-postgres.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

let postgres: SharedPostgres;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  postgres = sharedPostgres();
  const databaseUrl = await postgres.database('approvals_cluster');
  gateways.push(
    ...(await startPolicyCluster(databaseUrl, ['alpha', 'bravo'], 'approvals-cluster-key')),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await postgres?.drop();
}, 60_000);

async function pendingOn(g: RunningGateway): Promise<Json[]> {
  return settle(
    async () => (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items,
    (items: Json[]) => items.length > 0,
    20_000,
    25,
  );
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
