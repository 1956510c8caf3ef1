/**
 * Issue 33, item 1: an HTTP upstream whose 500 page echoes the request's headers must not hand
 * the credentials codemux sent it (its OAuth access token, a configured `headers` secret) to
 * anyone: not in the call error, the envelope, the activity record, the gateway's log or any
 * API answer, for the admin and for an agent token alike; and the page is quoted only as a
 * short excerpt. A real authorization server, a real OAuth-protected MCP server, a real gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR_EXCERPT_BYTES } from '../src/upstream/call-failure.ts';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from './fixtures/oauth/authorization-server.ts';
import {
  type ProtectedMcpServer,
  startProtectedMcpServer,
} from './fixtures/oauth/protected-mcp-server.ts';
import { followAuthorization } from './fixtures/oauth/user-agent.ts';
import { adminClient, type RunningGateway, startGateway, waitUntilReady } from './gateway.ts';
import { FIXTURE_SERVER, until, writeConfig } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

const HEADER_SECRET = 'hdr-5ecret-9f3a71c2';
/** The echoed page ends with this much filler: the excerpt must not carry it. */
const PAGE_PAD_BYTES = 8192;

describe('an upstream whose error page echoes the request headers', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let g: RunningGateway;
  let agent: Record<string, string>;
  const admin = () => ({ 'x-api-key': g.key, 'content-type': 'application/json' });

  const stateOf = async (): Promise<Json> =>
    (await g.rest('GET', '/api/v1/servers')).json.value.servers.find(
      (s: Json) => s.name === 'secured',
    );

  /** Every credential codemux sent the upstream: the header secret, each access token (whole and its signature part), each refresh token. */
  const secrets = () => [
    HEADER_SECRET,
    ...mcp.acceptedTokens().flatMap((token) => [token, token.split('.').at(-1)!]),
    ...as.issuedRefreshTokens(),
  ];

  const expectNoSecret = (where: string, text: string) => {
    for (const secret of secrets()) expect(text.includes(secret), `${where}: ${text}`).toBe(false);
  };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtlSeconds: 3600 });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUrl: as.jwksUrl });
    const configFile = writeConfig({
      mcpServers: [{ name: 'secured', url: mcp.url, headers: { 'X-Upstream-Key': HEADER_SECRET } }],
    });
    g = await startGateway(configFile, { env: { ...process.env, CODEMUX_LOG_LEVEL: 'debug' } });
    await until('needs_auth', async () =>
      (await stateOf())?.state === 'needs_auth' ? true : undefined,
    );
    const started = await g.rest('POST', '/api/v1/servers/secured/auth/login', {});
    expect(started.status).toBe(201);
    const callback = await followAuthorization(
      started.json.authorization_url,
      `${g.url}/oauth/callback`,
    );
    expect((await fetch(callback)).status).toBe(200);
    await until('ready', async () => ((await stateOf())?.state === 'ready' ? true : undefined));
    const created = await g.rest('POST', '/api/v1/tokens', {
      name: 'agent1',
      servers: ['secured'],
    });
    const token = created.json.token ?? created.json.value?.token;
    expect(token).toBeTruthy();
    agent = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  });
  afterAll(async () => {
    await g?.stop();
    await mcp?.close();
    await as?.close();
  });

  it('masks the credentials a tool echoes in its result (a successful one and an isError one) on every surface, and keeps the rest', async () => {
    const programs = {
      'call_tool ok': "return call_tool('secured', 'request_headers', {})",
      'call_tool isError': "return call_tool('secured', 'request_headers', { isError: true })",
      'tools.* ok': 'return await tools.secured.request_headers({})',
      'tools.* isError': 'return await tools.secured.request_headers({ isError: true })',
    };
    /** The echo was there: masked where a credential was, whole elsewhere (the host it was sent to). */
    const expectEchoMasked = (where: string, text: string) => {
      expectNoSecret(where, text);
      expect(text, where).toContain('[redacted]');
      expect(text, where).toMatch(/host\W+127\.0\.0\.1:\d+/);
    };
    for (const [who, headers] of [
      ['admin', admin()],
      ['agent', agent],
    ] as const) {
      for (const [name, code] of Object.entries(programs)) {
        const answer = await g.rest('POST', '/api/v1/code/exec', { code }, headers);
        expect(answer.status, JSON.stringify(answer.json)).toBe(200);
        const envelope = JSON.stringify(answer.json.value);
        expect(envelope, `${who} ${name}`).toContain('x-upstream-key');
        expectEchoMasked(`${who} ${name} envelope`, JSON.stringify(answer.json));
        for (const [reader, readerHeaders] of [
          ['admin', admin()],
          ['agent', agent],
        ] as const) {
          const record = await g.rest(
            'GET',
            `/api/v1/activity/${answer.json.activity_id}`,
            undefined,
            readerHeaders,
          );
          // Whatever an agent token may read of it, the admin reads it whole.
          if (reader === 'admin') expect(record.status).toBe(200);
          expectNoSecret(`${who} ${name} activity read by ${reader}`, JSON.stringify(record.json));
        }
      }
    }
    const mcpClient = await adminClient(g, '/mcp');
    const codemode = await adminClient(g, '/mcp/codemode');
    try {
      for (const [name, code] of Object.entries(programs)) {
        const [client, tool] = name.startsWith('tools.*')
          ? [codemode, 'execute']
          : [mcpClient, 'code_execution'];
        const result = await client.callTool({ name: tool, arguments: { code } });
        expectEchoMasked(`MCP ${tool} ${name}`, JSON.stringify(result));
      }
    } finally {
      await mcpClient.close();
      await codemode.close();
    }
    const list = await g.rest('GET', '/api/v1/activity?limit=500');
    expectNoSecret('activity list', JSON.stringify(list.json));
    expectNoSecret('gateway log', g.output());
  });

  it('masks the access token and the header secret, and quotes a short excerpt, for the admin and an agent token', async () => {
    // Three failures in a row: the last one also drops the connection (its reason is shown too).
    const callers = [
      ['admin', admin()],
      ['agent', agent],
      ['agent', agent],
    ] as const;
    for (const [who, headers] of callers) {
      mcp.echoHeadersNext(1, PAGE_PAD_BYTES);
      const answer = await g.rest(
        'POST',
        '/api/v1/code/exec',
        { code: "return call_tool('secured', 'whoami', {})" },
        headers,
      );
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      const error = answer.json.value?.error;
      expect(error?.code, `${who}: ${JSON.stringify(answer.json)}`).toMatch(
        /^(UPSTREAM_ERROR|SERVER_UNAVAILABLE)$/,
      );
      expect(error.message).toContain('secured');
      // The echoed headers were there, masked; the page's filler is cut away.
      expect(error.message).toContain('[redacted]');
      expect(Buffer.byteLength(error.message)).toBeLessThan(UPSTREAM_ERROR_EXCERPT_BYTES + 200);
      expectNoSecret(`${who} envelope`, JSON.stringify(answer.json));
      const id = answer.json.activity_id;
      expect(id).toBeTruthy();
      for (const [reader, readerHeaders] of [
        ['admin', admin()],
        ['agent', agent],
      ] as const) {
        const record = await g.rest('GET', `/api/v1/activity/${id}`, undefined, readerHeaders);
        expectNoSecret(`activity ${id} read by ${reader}`, JSON.stringify(record.json));
      }
    }
    // The secrets did reach the upstream: this test would see them if they leaked.
    expect(mcp.acceptedTokens().length).toBeGreaterThan(0);
    await until('the drop after three failures', async () =>
      (await stateOf())?.last_error ? true : undefined,
    );
    for (const [who, headers] of [
      ['admin', admin()],
      ['agent', agent],
    ] as const) {
      for (const route of [
        '/api/v1/servers',
        '/api/v1/servers/secured',
        '/api/v1/servers/secured/stderr',
        '/api/v1/activity?limit=500',
        '/api/v1/auth',
      ]) {
        const answer = await g.rest('GET', route, undefined, headers);
        expectNoSecret(`${route} for ${who}`, JSON.stringify(answer.json));
      }
    }
    expectNoSecret('gateway log', g.output());
  });
});

describe('a stdio server that fails to start', () => {
  let g: RunningGateway;
  const TOKEN = 'tok-8d1f0c5e-never-shown';
  afterAll(async () => {
    await g?.stop();
  });

  it('shows its stderr reason unmangled: short env values stay, secret and long ones are masked (item 11)', async () => {
    const script =
      "const e = process.env; process.stderr.write('nc-crashy refuses to start in ' + e.MODE + ' mode with token ' + e.API_TOKEN + '\\n'); process.exit(3)";
    const configFile = writeConfig({
      mcpServers: [
        {
          name: 'nc-crashy',
          command: process.execPath,
          args: ['-e', script],
          env: { MODE: 'crash', API_TOKEN: TOKEN },
        },
      ],
    });
    g = await startGateway(configFile);
    const server = await until('the failure with its stderr', async () => {
      const answer = await g.rest('GET', '/api/v1/servers');
      const s = answer.json.value.servers.find((x: Json) => x.name === 'nc-crashy');
      return /refuses/.test(s?.last_error ?? '') ? s : undefined;
    });
    expect(server.last_error).toContain(
      'nc-crashy refuses to start in crash mode with token [redacted]',
    );
    const stderr = await g.rest('GET', '/api/v1/servers/nc-crashy/stderr');
    expect(JSON.stringify(stderr.json)).toContain('nc-crashy refuses to start in crash mode');
    for (const text of [JSON.stringify(server), JSON.stringify(stderr.json), g.output()]) {
      expect(text).not.toContain(TOKEN);
    }
  });
});

describe('a stdio tool that echoes its env in its result', () => {
  let g: RunningGateway;
  const TOKEN = 'tok-31c7aa90-never-shown';
  const DATA_DIR = '/srv/data/of/the/server';
  afterAll(async () => {
    await g?.stop();
  });

  it('masks the values under secret-looking keys and keeps long plain ones (paths) whole', async () => {
    const configFile = writeConfig({
      mcpServers: [
        {
          name: 'leaky',
          command: process.execPath,
          args: [FIXTURE_SERVER],
          env: {
            API_TOKEN: TOKEN,
            DATA_DIR,
            MODE: 'crash',
            FIXTURE_ECHO_ENV: 'API_TOKEN,DATA_DIR,MODE',
          },
        },
      ],
    });
    g = await startGateway(configFile);
    await waitUntilReady(g);
    const answer = await g.rest('POST', '/api/v1/code/exec', {
      code: "return call_tool('leaky', 'env', {}).result",
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const values = { API_TOKEN: '[redacted]', DATA_DIR, MODE: 'crash' };
    expect(answer.json.value.structuredContent).toEqual({ env: { values } });
    expect(JSON.parse(answer.json.value.content[0].text)).toEqual(values);
    const record = await g.rest('GET', `/api/v1/activity/${answer.json.activity_id}`);
    for (const text of [JSON.stringify(answer.json), JSON.stringify(record.json), g.output()]) {
      expect(text).not.toContain(TOKEN);
    }
    expect(JSON.stringify(record.json)).toContain(DATA_DIR);
  });
});
