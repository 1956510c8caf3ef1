/**
 * tool_policy.approval_channels and tool_policy.max_pending_per_caller (issue 33, item 8), with
 * real parts: `codemux serve` over the annotated fixture server, an SDK client that would
 * answer elicitation, REST, the dashboard's session cookie, and the `codemux approvals` CLI.
 */
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { runCli, settle, writeConfig } from './helpers.ts';
import { policyConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

/** Polls until an approval whose args have `path` is pending. */
async function pendingFor(g: RunningGateway, path: string): Promise<Json> {
  const found = async () =>
    (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items.find(
      (a: Json) => a.args?.path === path,
    );
  return settle(found, (a) => a !== undefined, 20_000, 50);
}

/**
 * Rewrites the config's tool_policy (adding a rule that denies mut.read) and waits until the
 * gateway applied it: mut.read is refused.
 */
async function setPolicy(g: RunningGateway, policy: Json): Promise<void> {
  const raw = JSON.parse(fs.readFileSync(g.configFile, 'utf8'));
  const rules = [{ server: 'mut', tool: 'read', action: 'deny' }];
  fs.writeFileSync(g.configFile, JSON.stringify({ ...raw, tool_policy: { ...policy, rules } }));
  const code = "call_tool('mut','read',{}).error?.code";
  await settle(
    async () => (await g.rest('POST', '/api/v1/code/exec', { code })).json.value,
    (value) => value === 'POLICY_DENIED',
    20_000,
  );
}

it('refuses an unknown approval channel at start: exit 2 naming the setting and the allowed values', async () => {
  const configFile = writeConfig({ tool_policy: { approval_channels: ['rest', 'email'] } });
  const run = await runCli(['code', 'exec', '--code', '1', '--config', configFile]);
  expect(run.code).toBe(2);
  const said = run.stdout + run.stderr;
  expect(said).toContain('tool_policy.approval_channels');
  expect(said).toContain('"elicitation", "rest", "dashboard", "cli"');
});

describe('approval_channels', () => {
  let g: RunningGateway;
  const cli = (...args: string[]) => runCli([...args, '--config', g.configFile]);

  beforeAll(async () => {
    g = await startGateway(
      policyConfig({
        tool_policy: { approval_timeout_ms: 600_000, approval_channels: ['dashboard', 'cli'] },
      }),
    );
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it("without elicitation the agent's own client is never asked; REST is refused naming the setting; the CLI decides", async () => {
    let asked = 0;
    const client = new Client(
      { name: 'self-driving', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`)));
    try {
      const call = client.callTool(
        {
          name: 'code_execution',
          arguments: { code: "call_tool('mut','wipe',{path:'/self'}).ok" },
        },
        undefined,
        { timeout: 600_000 },
      );
      const approval = await pendingFor(g, '/self');
      expect(approval).toBeDefined();
      const viaRest = await g.rest('POST', `/api/v1/approvals/${approval.id}/approve`, {});
      expect(viaRest.status).toBe(403);
      expect(viaRest.json.error.code).toBe('CHANNEL_DISABLED');
      expect(viaRest.json.error.message).toContain('tool_policy.approval_channels');
      expect((await g.rest('GET', `/api/v1/approvals/${approval.id}`)).json.status).toBe('pending');
      const approved = await cli('approvals', 'approve', approval.id);
      expect(approved.code).toBe(0);
      const result: Json = await call;
      expect(result.structuredContent.value).toBe(true);
      expect(asked).toBe(0);
      expect((await g.rest('GET', `/api/v1/approvals/${approval.id}`)).json.decided_by).toBe(
        'admin via cli',
      );
    } finally {
      await client.close();
    }
  });

  it('the dashboard is refused when not listed, and the CLI after a reload leaves it out', async () => {
    await setPolicy(g, { approval_timeout_ms: 600_000, approval_channels: ['rest'] });
    const run = g.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('mut','wipe',{path:'/reload'}).ok",
    });
    const approval = await pendingFor(g, '/reload');
    const viaCli = await cli('approvals', 'approve', approval.id);
    expect(viaCli.code).toBe(1);
    expect(viaCli.stderr).toContain('tool_policy.approval_channels allows "rest"');

    const login = await fetch(`${g.url}/ui/login`, {
      method: 'POST',
      body: new URLSearchParams({ apikey: g.key }),
      redirect: 'manual',
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const viaDashboard = await g.rest(
      'POST',
      `/api/v1/approvals/${approval.id}/deny`,
      {},
      { cookie, 'x-codemux-ui': '1', 'content-type': 'application/json' },
    );
    expect(viaDashboard.status).toBe(403);
    expect(viaDashboard.json.error.message).toContain('through dashboard');

    const viaRest = await g.rest('POST', `/api/v1/approvals/${approval.id}/approve`, {});
    expect(viaRest.status).toBe(200);
    expect((await run).json.value).toBe(true);
  });
});

describe('max_pending_per_caller', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    g = await startGateway(
      policyConfig({ tool_policy: { approval_timeout_ms: 600_000, max_pending_per_caller: 2 } }),
    );
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it("one caller's approvals past the setting get QUEUE_FULL naming it; another caller still gets theirs", async () => {
    const created = await g.rest('POST', '/api/v1/tokens', { name: 'greedy', servers: ['mut'] });
    const token = created.json.token ?? created.json.value?.token;
    const asAgent = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const greedy = g.rest(
      'POST',
      '/api/v1/code/exec',
      {
        code: "const all = await Promise.all(['/g1','/g2','/g3'].map((path) => tools.mut.wipe({path}))); all.map((r) => r.ok ? 'sent' : r.error.message)",
      },
      asAgent,
    );
    // Two of the three are held, whichever came first; the third is refused at once.
    const held: Json[] = await settle(
      async () =>
        (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items.filter(
          (a: Json) => a.caller === 'token:greedy',
        ),
      (items) => items.length >= 2,
      20_000,
      50,
    );
    expect(held).toHaveLength(2);
    const other = g.rest('POST', '/api/v1/code/exec', {
      code: "call_tool('mut','wipe',{path:'/admin'}).ok",
    });
    const admins = await pendingFor(g, '/admin');
    expect(admins).toMatchObject({ caller: 'admin', status: 'pending' });
    for (const a of held) await g.rest('POST', `/api/v1/approvals/${a.id}/approve`, {});
    await g.rest('POST', `/api/v1/approvals/${admins.id}/approve`, {});
    const value = (await greedy).json.value;
    expect(value.filter((v: string) => v === 'sent')).toHaveLength(2);
    const [refused] = value.filter((v: string) => v !== 'sent');
    expect(refused).toContain('token:greedy already has 2 approvals pending');
    expect(refused).toContain('tool_policy.max_pending_per_caller');
    expect((await other).json.value).toBe(true);
  });
});
