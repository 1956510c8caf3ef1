/**
 * Approvals for 2026-07-28 clients (input_required), with real parts: `codemux serve`, the
 * annotated fixture server that counts the calls it receives, and the 2.x SDK client, which
 * answers input_required with its elicitation handler and retries the call. The program stays
 * held in place; the retry decides and gets the result, or the next question; nothing is sent
 * twice; a forged requestState is refused. Across two instances on one PostgreSQL, the retry
 * reaches the other instance and still gets the result.
 */
import { randomBytes } from 'node:crypto';
import {
  Client,
  type FetchLike,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { settle } from './helpers.ts';
import { policyConfig, startPolicyCluster } from './policy-fixtures.ts';
import { type SharedPostgres, sharedPostgres } from './shared-postgres.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const received = async (g: RunningGateway): Promise<Record<string, number>> => {
  const { json } = await g.rest('POST', '/api/v1/code/exec', {
    code: "call_tool('mut','received',{}).result.content[0].text",
  });
  return JSON.parse(json.value);
};

/** A 2026-07-28 client whose user answers every approval form with `decision`. */
async function modernClient(
  url: string,
  decision: 'approve' | 'deny' | undefined,
  options: { fetch?: FetchLike; headers?: Record<string, string> } = {},
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(
    { name: 'input-required-test', version: '1' },
    {
      versionNegotiation: { mode: 'auto' },
      ...(decision ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  if (decision) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { decision } };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: options.fetch,
      requestInit: { headers: options.headers },
    }),
  );
  expect(client.getProtocolEra()).toBe('modern');
  return { client, asked };
}

const TWO_WIPES =
  "const a = call_tool('mut','wipe',{path:'/one'}); const b = call_tool('mut','wipe',{path:'/two'}); [a.ok, b.ok]";

describe('on one instance', () => {
  let g: RunningGateway;
  beforeAll(async () => {
    g = await startGateway(policyConfig({ tool_policy: { approval_timeout_ms: 60_000 } }));
    await waitUntilReady(g);
  }, 60_000);
  afterAll(async () => {
    await g?.stop();
  });

  it('asks once per held call, resumes the program in place, and sends each call once', async () => {
    const before = await received(g);
    const { client, asked } = await modernClient(`${g.url}/mcp`, 'approve');
    try {
      const result = await client.callTool({
        name: 'code_execution',
        arguments: { code: TWO_WIPES },
      });
      expect((result.structuredContent as Json).value, JSON.stringify(result)).toEqual([
        true,
        true,
      ]);
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('mut.wipe');
    expect(asked[0]).toContain('/one');
    expect(asked[1]).toContain('/two');
    const after = await received(g);
    expect((after.wipe ?? 0) - (before.wipe ?? 0)).toBe(2);
    const decided = (await g.rest('GET', '/api/v1/approvals?status=approved')).json.items;
    expect(decided.slice(0, 2).map((a: Json) => a.decided_by)).toEqual([
      'the MCP client (input_required)',
      'the MCP client (input_required)',
    ]);
  });

  it('a denial reaches the program as a refused call and nothing is sent', async () => {
    const before = await received(g);
    const { client, asked } = await modernClient(`${g.url}/mcp/codemode`, 'deny');
    try {
      const result = await client.callTool({
        name: 'execute',
        arguments: { code: "return await tools.mut.wipe({path: '/denied'})" },
      });
      // Arion's envelope names a denial access_denied (APPROVAL_DENIED in code_execution).
      expect((result.structuredContent as Json).result).toEqual({
        ok: false,
        error: {
          code: 'access_denied',
          message: 'mut.wipe was denied by the MCP client (input_required)',
          retryable: false,
        },
      });
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(1);
    expect((await received(g)).wipe ?? 0).toBe(before.wipe ?? 0);
  });

  it('refuses a forged or altered requestState with -32602, deciding nothing', async () => {
    const body = (requestState: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'code_execution',
          arguments: { code: '1' },
          requestState,
          inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          },
        },
      });
    for (const state of ['v1.AAAA.BBBB', Buffer.from('{"run":"x"}').toString('base64url')]) {
      const response = await fetch(`${g.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'code_execution',
        },
        body: body(state),
      });
      const text = await response.text();
      expect(text).toContain('-32602');
      expect(text).toContain('requestState');
    }
  });

  it('a client that cannot be asked waits for a decision made elsewhere (REST)', async () => {
    const { client, asked } = await modernClient(`${g.url}/mcp`, undefined);
    try {
      const call = client.callTool({
        name: 'code_execution',
        arguments: { code: "call_tool('mut','wipe',{path:'/rest'}).ok" },
      });
      const pending: Json[] = await settle(
        async () => (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items,
        (items: Json[]) => items.length > 0,
        20_000,
        50,
      );
      expect(pending[0]?.args).toEqual({ path: '/rest' });
      await g.rest('POST', `/api/v1/approvals/${pending[0].id}/approve`, {});
      expect(((await call).structuredContent as Json).value).toBe(true);
    } finally {
      await client.close();
    }
    expect(asked).toEqual([]);
  });
});

describe('across two instances on one PostgreSQL', () => {
  let postgres: SharedPostgres;
  const gateways: RunningGateway[] = [];
  beforeAll(async () => {
    postgres = sharedPostgres();
    const databaseUrl = await postgres.database('input_required_cluster');
    // Every instance seals and opens requestState with the same key.
    const env = { ...process.env, CODEMUX_SECRET_KEY: randomBytes(32).toString('hex') };
    gateways.push(
      ...(await startPolicyCluster(databaseUrl, ['alpha', 'bravo'], 'input-required-key', env)),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await postgres?.drop();
  }, 60_000);

  it('the retry reaches the other instance, decides there, and gets the result of the held program', async () => {
    const [alpha, bravo] = gateways as [RunningGateway, RunningGateway];
    const before = await received(alpha);
    const targets = [alpha.url, bravo.url];
    const seen: string[] = [];
    let next = 0;
    // No affinity: every request to the next instance in turn.
    const roundRobin: FetchLike = (input, init) => {
      const target = targets[next++ % targets.length] ?? alpha.url;
      const url = new URL(String(input instanceof Request ? input.url : input));
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"tools/call"'))
        seen.push(
          `${target === alpha.url ? 'alpha' : 'bravo'}:${body.includes('requestState') ? 'retry' : 'call'}`,
        );
      return fetch(`${target}${url.pathname}${url.search}`, init);
    };
    // The probe goes to alpha; the call then to bravo... so start the call on alpha.
    const { client, asked } = await modernClient('http://balancer.invalid/mcp', 'approve', {
      fetch: roundRobin,
      headers: { 'x-api-key': 'input-required-key' },
    });
    try {
      next = 0;
      const result = await client.callTool({
        name: 'code_execution',
        arguments: { code: "call_tool('mut','wipe',{path:'/cluster'}).ok" },
      });
      expect((result.structuredContent as Json).value, JSON.stringify(result)).toBe(true);
    } finally {
      await client.close();
    }
    expect(asked).toHaveLength(1);
    expect(seen).toEqual(['alpha:call', 'bravo:retry']);
    // The program ran on alpha: its server got the call, once; bravo's got none.
    expect(((await received(alpha)).wipe ?? 0) - (before.wipe ?? 0)).toBe(1);
    expect((await received(bravo)).wipe ?? 0).toBe(0);
    const approved = (await bravo.rest('GET', '/api/v1/approvals?status=approved')).json.items;
    expect(approved[0]).toMatchObject({
      instance_id: 'alpha',
      decided_by: 'the MCP client (input_required)',
    });
  });
});
