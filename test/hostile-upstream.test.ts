/**
 * Hostile upstream answers (issue 8, item 1): each attack of the table goes through
 * call_tool, call_tools beside a healthy sibling, tools.* and execute on a real gateway;
 * the call gets a clear error (or a correct result), the gateway keeps answering within a
 * second meanwhile, the next call works and GET /api/v1/servers still says ready.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { ROOT, SERVERS, settle, writeConfig } from './helpers.ts';

const HOSTILE = path.join(ROOT, 'test', 'fixtures', 'hostile-server.mjs');
/**
 * /healthz stays answered while a hostile answer is handled. What this catches is a gateway
 * that blocks its event loop for the whole of a hostile answer (a parse of a huge or deeply
 * nested result on the main thread stalls it for many seconds, or until the test's timeout).
 * The bar is far above what a loaded 2-core machine adds (3 s was seen exceeded, at 3.2 s, while
 * other suites ran): a timed bar near the normal answer time only passes on an idle machine.
 * How fast a gateway answers is measured by bench/, not here.
 */
const RESPONSIVE_MS = 12_000;
const TOO_DEEP = /^hostile\.attack: result too deep \(more than 1000 levels\)$/;
/** code_execution_max_result_bytes (16 MiB) in the code_execution dialect, code_mode.max_output_bytes (1 MiB) in execute. */
const TOO_LARGE = /^hostile\.attack: result too large \(\d+ bytes, at most (16777216|1048576)\)$/;

interface Attack {
  kind: string;
  /** A failure: the sync dialect's code, the async one's, and the message of both. */
  fails?: { sync: string; async: string; message: RegExp };
  /** A success: the text of content[0] (and the async data when there is no structuredContent). */
  text?: string;
  /** A success with structuredContent: its own keys, as the guest sees them. */
  keys?: string[];
}

const ATTACKS: Attack[] = [
  {
    kind: 'deep_array',
    fails: { sync: 'UPSTREAM_ERROR', async: 'invalid_output', message: TOO_DEEP },
  },
  {
    kind: 'deep_object',
    fails: { sync: 'UPSTREAM_ERROR', async: 'invalid_output', message: TOO_DEEP },
  },
  { kind: 'deep_ok', text: 'deep', keys: ['v'] },
  {
    kind: 'huge',
    fails: { sync: 'UPSTREAM_ERROR', async: 'result_too_large', message: TOO_LARGE },
  },
  { kind: 'proto', text: 'proto', keys: ['__proto__', 'inner'] },
  { kind: 'non_json', text: 'survived non_json' },
  { kind: 'wrong_id', text: 'survived wrong_id' },
  { kind: 'missing_id', text: 'survived missing_id' },
  { kind: 'notifications', text: 'survived notifications' },
  { kind: 'roots', text: 'roots/list: error -32601' },
  { kind: 'sampling', text: 'sampling/createMessage: error -32601' },
  // Put to a person (docs/input.md); nobody answers, it expires and the server hears cancel.
  { kind: 'elicitation', text: 'elicitation/create: result' },
];

/** Guest code: what a call envelope looks like from inside, and whether prototypes are intact. */
const SUMMARY = `function summary(r) {
  var sc = r.ok ? (r.result ? r.result.structuredContent : r.data) : undefined;
  var data = r.ok && r.result === undefined ? r.data : undefined;
  var own = sc && typeof sc === 'object' ? sc : undefined;
  return {
    ok: r.ok, code: r.ok ? null : r.error.code, message: r.ok ? null : r.error.message,
    text: r.ok ? (r.result ? r.result.content[0].text : typeof data === 'string' ? data : null) : null,
    keys: own ? Object.keys(own) : null,
    plainData: own ? Object.getPrototypeOf(own) === Object.prototype && (!Object.hasOwn(own, '__proto__') || own.__proto__.polluted === 'yes') : true,
    unpolluted: ({}).polluted === undefined && Object.getPrototypeOf({}) === Object.prototype,
  };
}`;

let gateway: RunningGateway;
let codemode: Client;

beforeAll(async () => {
  gateway = await startGateway(
    writeConfig({
      tool_policy: { approval_timeout_ms: 1_000 },
      mcpServers: [
        SERVERS.fixture,
        { name: 'hostile', command: process.execPath, args: [HOSTILE] },
      ],
    }),
  );
  await waitReady();
  codemode = new Client({ name: 'hostile-test', version: '1.0.0' });
  await codemode.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/codemode`), {
      requestInit: { headers: { 'x-api-key': gateway.key } },
    }),
  );
}, 30_000);

afterAll(async () => {
  await codemode?.close();
  await gateway?.stop();
});

async function servers(): Promise<Array<{ name: string; state: string }>> {
  return (await gateway.rest('GET', '/api/v1/servers')).json.value.servers;
}

async function waitReady(): Promise<void> {
  const all = await settle(servers, (s) => s.every((one) => one.state === 'ready'), 10_000, 50);
  if (!all.every((s) => s.state === 'ready'))
    throw new Error(`servers not ready: ${JSON.stringify(all)}`);
}

// biome-ignore lint/suspicious/noExplicitAny: guest values
async function exec(code: string): Promise<any> {
  const { status, json } = await gateway.rest('POST', '/api/v1/code/exec', { code });
  expect(status, JSON.stringify(json)).toBe(200);
  expect(json.ok, JSON.stringify(json)).toBe(true);
  return json.value;
}

/** Runs `work` while /healthz is asked in a loop; returns its value and the slowest answer. */
async function underWatch<T>(work: () => Promise<T>): Promise<{ value: T; slowestMs: number }> {
  let done = false;
  let slowestMs = 0;
  const watcher = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${gateway.url}/healthz`);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      slowestMs = Math.max(slowestMs, performance.now() - started);
      // The watcher's pace on purpose: it samples /healthz latency while the work runs.
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    return { value: await work(), slowestMs };
  } finally {
    done = true;
    await watcher;
  }
}

function expectSummary(
  // biome-ignore lint/suspicious/noExplicitAny: guest values
  got: any,
  attack: Attack,
  dialect: 'sync' | 'async',
): void {
  expect(got.unpolluted).toBe(true);
  expect(got.plainData).toBe(true);
  if (attack.fails) {
    expect(got.ok).toBe(false);
    expect(got.code).toBe(attack.fails[dialect]);
    expect(got.message).toMatch(attack.fails.message);
    return;
  }
  expect(got.ok, JSON.stringify(got)).toBe(true);
  if (attack.keys) expect(got.keys).toEqual(attack.keys);
  if (dialect === 'sync' || !attack.keys) expect(got.text).toBe(attack.text);
}

/** The four ways a program reaches an upstream tool. */
const SURFACES = {
  call_tool: async (kind: string, attack: Attack) => {
    const got = await exec(
      `${SUMMARY}\nsummary(call_tool('hostile', 'attack', { kind: ${JSON.stringify(kind)} }))`,
    );
    expectSummary(got, attack, 'sync');
  },
  call_tools: async (kind: string, attack: Attack) => {
    const got = await exec(`${SUMMARY}
const rs = call_tools([
  { server: 'hostile', tool: 'attack', args: { kind: ${JSON.stringify(kind)} } },
  { server: 'fixture', tool: 'echo', args: { message: 'sibling' } },
]);
[summary(rs[0]), summary(rs[1])]`);
    expectSummary(got[0], attack, 'sync');
    expect(got[1]).toMatchObject({ ok: true, text: '{"message":"sibling"}' });
  },
  'tools.*': async (kind: string, attack: Attack) => {
    const got = await exec(
      `${SUMMARY}\nsummary(await tools.hostile.attack({ kind: ${JSON.stringify(kind)} }))`,
    );
    expectSummary(got, attack, 'async');
  },
  execute: async (kind: string, attack: Attack) => {
    const out = await codemode.callTool({
      name: 'execute',
      arguments: {
        code: `${SUMMARY}\nreturn summary(await tools.hostile.attack({ kind: ${JSON.stringify(kind)} }));`,
      },
    });
    // biome-ignore lint/suspicious/noExplicitAny: the execute result
    const structured = out.structuredContent as any;
    expect(structured.status, JSON.stringify(structured.error)).toBe('completed');
    expectSummary(structured.result, attack, 'async');
  },
} as const;

describe('hostile upstream answers', () => {
  for (const attack of ATTACKS) {
    for (const [surface, run] of Object.entries(SURFACES)) {
      it(`${attack.kind} through ${surface}: ${attack.fails ? `${attack.fails.sync} / ${attack.fails.async}` : 'a correct result'}, and the gateway stays well`, async () => {
        const { slowestMs } = await underWatch(() => run(attack.kind, attack));
        expect(slowestMs).toBeLessThan(RESPONSIVE_MS);
        const next = await exec(`call_tool('hostile', 'echo', { message: 'next' })`);
        expect(next).toEqual({
          ok: true,
          result: { content: [{ type: 'text', text: '{"message":"next"}' }] },
        });
        expect(await servers()).toEqual([
          expect.objectContaining({ name: 'fixture', state: 'ready' }),
          expect.objectContaining({ name: 'hostile', state: 'ready' }),
        ]);
      }, 30_000);
    }
  }
});
