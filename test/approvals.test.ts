/**
 * Tool policy and approvals with real parts: `codemux serve`, a fixture server whose tools
 * carry MCP annotations and count the calls they receive, REST decisions, an SDK client that
 * answers elicitation requests, progress notifications, expiry and tampered decisions.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { runCli, settle } from './helpers.ts';
import { policyConfig } from './policy-fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const exec = (g: RunningGateway, code: string, options: Json = {}): Promise<Json> =>
  g.rest('POST', '/api/v1/code/exec', { code, options }).then((r) => r.json);

const received = async (g: RunningGateway): Promise<Record<string, number>> =>
  JSON.parse((await exec(g, "call_tool('mut','received',{}).result.content[0].text")).value);

const approvals = async (g: RunningGateway, status = 'pending'): Promise<Json[]> =>
  (await g.rest('GET', `/api/v1/approvals?status=${status}`)).json.items;

/** Polls until `count` approvals (of the call whose args have `path`, when given) are pending; newest first. */
async function pending(g: RunningGateway, count = 1, path?: string): Promise<Json[]> {
  const matching = async () =>
    (await approvals(g)).filter((a) => path === undefined || a.args?.path === path);
  return settle(matching, (items) => items.length >= count, 20_000, 50);
}

const decide = (g: RunningGateway, id: string, decision: 'approve' | 'deny', body?: Json) =>
  g.rest('POST', `/api/v1/approvals/${id}/${decision}`, body);

describe('tool policy: deny and ask over REST', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    g = await startGateway(
      policyConfig({
        tool_policy: {
          rules: [{ server: 'mut', tool: 'write', action: 'deny' }],
          approval_timeout_ms: 60_000,
        },
      }),
    );
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it('refuses a denied call in both dialects before dispatch; nothing reaches the server', async () => {
    const body = await exec(
      g,
      "[call_tool('mut','write',{path:'/a'}), await tools.mut.write({path:'/a'})]",
    );
    expect(body.value).toEqual([
      {
        ok: false,
        error: { code: 'POLICY_DENIED', message: 'mut.write is denied by tool_policy (rule 1)' },
      },
      {
        ok: false,
        error: {
          code: 'access_denied',
          message: 'mut.write is denied by tool_policy (rule 1)',
          retryable: false,
        },
      },
    ]);
    expect((await received(g)).write).toBeUndefined();
    const record = (await g.rest('GET', `/api/v1/activity/${body.activity_id}`)).json;
    expect(record.children.map((c: Json) => [c.status, c.error?.code])).toEqual([
      ['blocked', 'POLICY_DENIED'],
      ['blocked', 'POLICY_DENIED'],
    ]);
  });

  it('lets read-only and plain tools through (default allow)', async () => {
    const body = await exec(g, "call_tool('mut','read',{path:'/r'}).ok");
    expect(body.value).toBe(true);
  });

  it('holds an annotated destructive call until approved, then sends it once with exactly its arguments', async () => {
    // The execution's own timeout is far shorter than the wait: the wall clock stops while it waits.
    const run = exec(g, "const r = call_tool('mut','wipe',{path:'/x', deep:{b:1,a:[2]}}); r", {
      timeout_ms: 1000,
    });
    const [approval] = await pending(g);
    expect(approval).toMatchObject({
      status: 'pending',
      server: 'mut',
      tool: 'wipe',
      args: { path: '/x', deep: { b: 1, a: [2] } },
      reason: 'annotated destructive',
      caller: 'admin',
      decided_by: null,
      decided_at: null,
    });
    expect(approval.args_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(approval.code).toContain("call_tool('mut','wipe'");
    expect(Date.parse(approval.expires_at) - Date.parse(approval.created_at)).toBe(60_000);
    // A wait on purpose, past the run's timeout_ms: the thing under test is that the clock stops
    // while the call is held. received() is a later call to the same upstream, answered after
    // any wipe sent early would have been.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await received(g)).wipe).toBeUndefined();
    const decided = await decide(g, approval.id, 'approve', { args_sha256: approval.args_sha256 });
    expect(decided.status).toBe(200);
    expect(decided.json.approval).toMatchObject({ status: 'approved', decided_by: 'admin' });
    const body = await run;
    expect(body.value).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'wipe:{"path":"/x","deep":{"b":1,"a":[2]}}' }] },
    });
    expect((await received(g)).wipe).toBe(1);
    expect(approval.activity_id).toBe(body.activity_id);
    const record = (await g.rest('GET', `/api/v1/activity/${body.activity_id}`)).json;
    expect(record.children[0]).toMatchObject({ status: 'success', approval_id: approval.id });
  });

  it('answers APPROVAL_DENIED to a denied call and the program goes on', async () => {
    const run = exec(
      g,
      "const d = await tools.mut.wipe({path:'/y'}); [d, call_tool('mut','read',{}).ok]",
    );
    const [approval] = await pending(g);
    expect((await decide(g, approval.id, 'deny')).json.approval.status).toBe('denied');
    const body = await run;
    expect(body.value).toEqual([
      {
        ok: false,
        error: { code: 'access_denied', message: 'mut.wipe was denied by admin', retryable: false },
      },
      true,
    ]);
    const record = (await g.rest('GET', `/api/v1/activity/${body.activity_id}`)).json;
    expect(record.children[0]).toMatchObject({
      status: 'blocked',
      error: { code: 'APPROVAL_DENIED', message: 'mut.wipe was denied by admin' },
    });
  });

  it('holds each ask element of a call_tools batch on its own; the others go on', async () => {
    const run = exec(
      g,
      "call_tools([{server:'mut',tool:'read',args:{}},{server:'mut',tool:'wipe',args:{path:'/b'}},{server:'mut',tool:'write',args:{}}])",
    );
    const [approval] = await pending(g);
    await decide(g, approval.id, 'approve');
    const body = await run;
    expect(body.value.map((e: Json) => e.ok)).toEqual([true, true, false]);
    expect(body.value[2].error.code).toBe('POLICY_DENIED');
  });

  it.each([
    ['an unknown id', () => 'nope', 'approve', undefined, 404, 'APPROVAL_NOT_FOUND'],
    [
      'a digest of other arguments',
      (a: Json) => a.id,
      'approve',
      { args_sha256: '0'.repeat(64) },
      409,
      'ARGS_MISMATCH',
    ],
    [
      'a malformed digest',
      (a: Json) => a.id,
      'approve',
      { args_sha256: 'abc' },
      400,
      'INVALID_REQUEST',
    ],
  ])(
    'refuses a decision with %s and changes nothing',
    async (_label, idOf, decision, body, status, code) => {
      const run = exec(g, "call_tool('mut','wipe',{path:'/t'}).ok");
      const [approval] = await pending(g);
      const answer = await decide(g, idOf(approval), decision as 'approve', body);
      expect(answer.status).toBe(status);
      expect(answer.json.error.code).toBe(code);
      expect((await g.rest('GET', `/api/v1/approvals/${approval.id}`)).json.status).toBe('pending');
      await decide(g, approval.id, 'deny');
      expect((await run).value).toBe(false);
    },
  );

  it('refuses a second decision (409) and a replay of the first', async () => {
    const run = exec(g, "call_tool('mut','wipe',{path:'/r'}).ok");
    const [approval] = await pending(g);
    expect((await decide(g, approval.id, 'approve')).status).toBe(200);
    for (const again of ['approve', 'deny'] as const) {
      const answer = await decide(g, approval.id, again);
      expect(answer.status).toBe(409);
      expect(answer.json.error.code).toBe('APPROVAL_DECIDED');
      expect(answer.json.error.message).toContain('was already approved by admin');
    }
    expect((await run).value).toBe(true);
  });

  it('gives agent tokens 403 on every approvals route', async () => {
    const created = await g.rest('POST', '/api/v1/tokens', { name: 'agent1', servers: ['mut'] });
    const token = created.json.token ?? created.json.value?.token;
    expect(token).toBeTruthy();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (const [method, route] of [
      ['GET', '/api/v1/approvals'],
      ['GET', '/api/v1/approvals/x'],
      ['GET', '/api/v1/approvals/stream'],
      ['POST', '/api/v1/approvals/x/approve'],
      ['POST', '/api/v1/approvals/x/deny'],
    ] as const) {
      const answer = await g.rest(method, route, method === 'POST' ? {} : undefined, headers);
      expect(answer.status, route).toBe(403);
    }
  });

  it('expires a pending approval when the REST client goes away', async () => {
    const controller = new AbortController();
    const run = fetch(`${g.url}/api/v1/code/exec`, {
      method: 'POST',
      headers: { 'x-api-key': g.key, 'content-type': 'application/json' },
      body: JSON.stringify({ code: "call_tool('mut','wipe',{path:'/gone'})" }),
      signal: controller.signal,
    }).catch(() => undefined);
    const [approval] = await pending(g);
    controller.abort();
    await run;
    const status = await settle(
      async () => (await g.rest('GET', `/api/v1/approvals/${approval.id}`)).json.status,
      (s) => s !== 'pending',
      20_000,
      50,
    );
    expect(status).toBe('expired');
    expect((await decide(g, approval.id, 'approve')).status).toBe(410);
  });
});

describe('approvals: expiry', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    // One caller (admin) may fill every slot here: the gateway-wide bound is under test.
    g = await startGateway(
      policyConfig({ tool_policy: { approval_timeout_ms: 1000, max_pending_per_caller: 100 } }),
    );
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it('answers APPROVAL_TIMEOUT once nobody decided in time; a late decision gets 410', async () => {
    const body = await exec(
      g,
      "const r = call_tool('mut','wipe',{}); [r, await tools.mut.wipe({})]",
    );
    expect(body.value[0].error.code).toBe('APPROVAL_TIMEOUT');
    expect(body.value[0].error.message).toContain('nobody decided within 1000 ms');
    expect(body.value[1].error).toMatchObject({ code: 'upstream_timeout', retryable: true });
    expect((await received(g)).wipe).toBeUndefined();
    const [expired] = await approvals(g, 'expired');
    expect(expired).toMatchObject({ status: 'expired', decided_by: 'timeout' });
    const late = await decide(g, expired.id, 'approve');
    expect(late.status).toBe(410);
    expect(late.json.error.code).toBe('APPROVAL_EXPIRED');
    const record = (await g.rest('GET', `/api/v1/activity/${body.activity_id}`)).json;
    expect(record.children.map((c: Json) => [c.status, c.error.code])).toEqual([
      ['blocked', 'APPROVAL_TIMEOUT'],
      ['blocked', 'APPROVAL_TIMEOUT'],
    ]);
  });

  it('shows arguments up to 64 KiB whole, key-sorted, secrets redacted; the digest covers them (issue 33, item 4)', async () => {
    const body = await exec(
      g,
      "call_tool('mut','wipe',{path:'x'.repeat(20000), token:'s3cret', a:{z:1,b:2}}).error.code",
    );
    expect(body.value).toBe('APPROVAL_TIMEOUT');
    const [shown] = await approvals(g, 'expired');
    expect(shown.args).toEqual({ a: { b: 2, z: 1 }, path: 'x'.repeat(20000), token: '[redacted]' });
    expect(Object.keys(shown.args)).toEqual(['a', 'path', 'token']);
    expect(shown.args_truncated).toBe(false);
    expect(shown.args_cut_keys).toEqual([]);
    const whole = JSON.stringify({ a: { b: 2, z: 1 }, path: 'x'.repeat(20000), token: 's3cret' });
    const digest = createHash('sha256').update(whole).digest('hex');
    expect(shown.args_sha256).toBe(digest);
  });

  it('cuts arguments over 64 KiB by key, says which, and serves them whole to the admin only (issue 33, item 4)', async () => {
    const body = await exec(
      g,
      "call_tool('mut','wipe',{a:'first', big:'y'.repeat(70000), token:'s3cret', z:'last'}).error.code",
    );
    expect(body.value).toBe('APPROVAL_TIMEOUT');
    const [shown] = await approvals(g, 'expired');
    expect(shown.args).toEqual({ a: 'first', token: '[redacted]', z: 'last' });
    expect(shown.args_truncated).toBe(true);
    expect(shown.args_cut_keys).toEqual(['big']);
    const all = await g.rest('GET', `/api/v1/approvals/${shown.id}/args`);
    expect(all.status).toBe(200);
    expect(all.json).toEqual({
      a: 'first',
      big: 'y'.repeat(70000),
      token: '[redacted]',
      z: 'last',
    });
    const created = await g.rest('POST', '/api/v1/tokens', {
      name: 'args-agent',
      servers: ['mut'],
    });
    const auth = { authorization: `Bearer ${created.json.token ?? created.json.value?.token}` };
    const agent = await g.rest('GET', `/api/v1/approvals/${shown.id}/args`, undefined, auth);
    expect(agent.status).toBe(403);
    expect((await g.rest('GET', '/api/v1/approvals/nope/args')).status).toBe(404);
    const list = await runCli([
      'approvals',
      'list',
      '--status',
      'expired',
      '--config',
      g.configFile,
    ]);
    expect(list.stdout).toContain(
      `${shown.id}: arguments over 64 KiB, not shown in full: big (\`codemux approvals args ${shown.id}\` prints them whole)`,
    );
    const printed = await runCli(['approvals', 'args', shown.id, '--config', g.configFile]);
    expect(printed.code).toBe(0);
    expect(printed.json).toEqual(all.json);
  });

  it('applies a reloaded tool_policy to the next call', async () => {
    const raw = JSON.parse(fs.readFileSync(g.configFile, 'utf8'));
    fs.writeFileSync(
      g.configFile,
      JSON.stringify({ ...raw, tool_policy: { ...raw.tool_policy, default: 'deny' } }),
    );
    const code = await settle(
      async () => (await exec(g, "call_tool('mut','read',{}).error?.code")).value,
      (c) => c === 'POLICY_DENIED',
      20_000,
    );
    expect(code).toBe('POLICY_DENIED');
    expect((await exec(g, "call_tool('mut','read',{}).error.message")).value).toBe(
      'mut.read is denied by tool_policy (default)',
    );
    fs.writeFileSync(g.configFile, JSON.stringify(raw));
  });

  it('refuses an ask call with QUEUE_FULL past 100 pending approvals', async () => {
    const body = await exec(
      g,
      "const all = await Promise.all(Array.from({length: 101}, (_, i) => tools.mut.wipe({path: String(i)}))); all.filter(r => r.error?.code === 'overflow').map(r => r.error.message)",
      { timeout_ms: 60_000 },
    );
    expect(body.value).toHaveLength(1);
    expect(body.value[0]).toContain('100 approvals are already pending');
  });
});

describe('approvals through MCP: elicitation and progress', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    g = await startGateway(policyConfig({ tool_policy: { approval_timeout_ms: 60_000 } }));
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  async function client(answer?: (message: string) => Json) {
    const c = new Client(
      { name: 'approver', version: '1' },
      { capabilities: answer ? { elicitation: { form: {} } } : {} },
    );
    if (answer) {
      c.setRequestHandler(ElicitRequestSchema, async (request) =>
        answer((request.params as { message: string }).message),
      );
    }
    await c.connect(new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`)));
    return c;
  }

  const run = (c: Client, code: string, onprogress?: (p: Json) => void) =>
    c.callTool({ name: 'code_execution', arguments: { code } }, undefined, {
      timeout: 60_000,
      ...(onprogress ? { onprogress } : {}),
    });

  it.each([
    ['accept approve', { action: 'accept', content: { decision: 'approve' } }, true, 'approved'],
    ['accept deny', { action: 'accept', content: { decision: 'deny' } }, false, 'denied'],
    ['decline', { action: 'decline' }, false, 'denied'],
  ])('asks the calling client (%s)', async (_label, reply, ok, status) => {
    const messages: string[] = [];
    const c = await client((message) => {
      messages.push(message);
      return reply;
    });
    try {
      const result: Json = await run(c, "call_tool('mut','wipe',{path:'/e'})");
      expect(result.structuredContent.value.ok).toBe(ok);
      if (!ok) {
        expect(result.structuredContent.value.error.message).toBe(
          'mut.wipe was denied by the MCP client (elicitation)',
        );
      }
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain('mut.wipe');
      expect(messages[0]).toContain('"path": "/e"');
      const [latest] = await approvals(g, status);
      expect(latest).toMatchObject({ status, decided_by: 'the MCP client (elicitation)' });
    } finally {
      await c.close();
    }
  });

  it('says in the elicitation that arguments over 64 KiB are too large to show, and to decide on the dashboard (issue 33, item 4)', async () => {
    const messages: string[] = [];
    const c = await client((message) => {
      messages.push(message);
      return { action: 'decline' };
    });
    try {
      await run(c, "call_tool('mut','wipe',{path:'/big', big:'q'.repeat(70000)})");
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain('too large to show');
      expect(messages[0]).toContain("decide on the dashboard's Approvals page");
      expect(messages[0]).not.toContain('qqqqqqqqqq');
    } finally {
      await c.close();
    }
  });

  it('keeps a client without elicitation informed with progress; REST decides', async () => {
    const c = await client();
    try {
      const progress: Json[] = [];
      const result = run(c, "call_tool('mut','wipe',{path:'/p'}).ok", (p) => progress.push(p));
      const [approval] = await pending(g, 1, '/p');
      await settle(
        async () => progress.length,
        (n) => n > 0,
        20_000,
        50,
      );
      expect(progress[0].message).toContain(`waiting for approval ${approval.id}`);
      expect(progress[0].message).toContain(`codemux approvals approve ${approval.id}`);
      await decide(g, approval.id, 'approve');
      expect(((await result) as Json).structuredContent.value).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('asks over /mcp/codemode (execute) and for a code tool called over MCP', async () => {
    const reply = { action: 'accept', content: { decision: 'approve' } };
    const c = new Client(
      { name: 'approver', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    c.setRequestHandler(ElicitRequestSchema, async () => reply);
    await c.connect(new StreamableHTTPClientTransport(new URL(`${g.url}/mcp/codemode`)));
    try {
      const answer: Json = await c.callTool({
        name: 'execute',
        arguments: { code: "return await tools['mut.wipe']({path:'/x1'})", timeout_ms: 60_000 },
      });
      expect(answer.structuredContent.result).toEqual({
        ok: true,
        data: 'wipe:{"path":"/x1"}',
        meta: { omitted: 0 },
      });
    } finally {
      await c.close();
    }
    expect((await g.rest('POST', '/api/v1/code-tools', { name: 'wiper' })).status).toBe(201);
    await g.rest('PUT', '/api/v1/code-tools/wiper', {
      code: "const r = call_tool('mut','wipe',{path:'/ct'}); r.ok ? 'wiped' : r.error.message",
      allowed_servers: ['mut'],
      timeout_ms: 60_000,
    });
    const tool = new Client(
      { name: 'denier', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    tool.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    await tool.connect(new StreamableHTTPClientTransport(new URL(`${g.url}/mcp`)));
    try {
      const answer: Json = await tool.callTool({ name: 'wiper', arguments: {} });
      expect(answer.content[0].text).toBe('mut.wipe was denied by the MCP client (elicitation)');
    } finally {
      await tool.close();
    }
  });

  it('a dry run never asks', async () => {
    const body = (
      await g.rest('POST', '/api/v1/code/exec', {
        code: "call_tool('mut','wipe',{}).result.structuredContent",
        dry_run: true,
      })
    ).json;
    expect(body.value).toEqual({ dry_run: true, server: 'mut', tool: 'wipe' });
    const all = await g.rest('GET', '/api/v1/approvals');
    expect(all.json.items.filter((a: Json) => a.args?.path === '/dry')).toEqual([]);
  });
});
