import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from './gateway.ts';
import { ROOT, settle, writeConfig } from './helpers.ts';

const HOSTILE = path.join(ROOT, 'test', 'fixtures', 'hostile-schema-server.mjs');
/** The rule: a trivial request from another client answers within a second throughout. */
const TRIVIAL_REQUEST_MAX_MS = 1000;
const QUERY = 'alpha beta gamma delta record invoice calendar weather stock ticket page';

let gateway: RunningGateway;

// biome-ignore lint/suspicious/noExplicitAny: REST bodies
async function exec(code: string, timeoutMs = 60_000): Promise<any> {
  const response = await fetch(`${gateway.url}/api/v1/code/exec`, {
    method: 'POST',
    headers: { 'x-api-key': gateway.key, 'content-type': 'application/json' },
    body: JSON.stringify({ code, options: { timeout_ms: timeoutMs } }),
    signal: AbortSignal.timeout(timeoutMs + 30_000),
  });
  return response.json();
}

/** Runs `attack` while another client sends trivial executions; returns its body and the slowest probe. */
async function underAttack(attack: string) {
  let done = false;
  const result = exec(attack).finally(() => {
    done = true;
  });
  let slowestMs = 0;
  let probes = 0;
  while (!done) {
    const started = performance.now();
    try {
      const body = await fetch(`${gateway.url}/api/v1/code/exec`, {
        method: 'POST',
        headers: { 'x-api-key': gateway.key, 'content-type': 'application/json' },
        body: JSON.stringify({ code: '1 + 1' }),
        signal: AbortSignal.timeout(5_000),
      }).then((r) => r.json() as Promise<{ value?: unknown }>);
      expect(body.value).toBe(2);
    } catch {
      slowestMs = Number.POSITIVE_INFINITY;
      break;
    }
    slowestMs = Math.max(slowestMs, performance.now() - started);
    probes++;
    // The probe's pace on purpose: it samples the main thread's latency while the work runs.
    await new Promise((r) => setTimeout(r, 20));
  }
  return { body: await result, slowestMs, probes };
}

beforeAll(async () => {
  const file = writeConfig({
    mcpServers: [{ name: 'hostile', command: process.execPath, args: [HOSTILE] }],
  });
  gateway = await startGateway(file);
  await settle(
    () => exec('(await catalog.namespaces.list()).data.items.length', 10_000),
    (body) => body.value === 1,
    30_000,
  );
  await exec('1');
}, 60_000);

afterAll(async () => {
  // A gateway whose main thread is stuck does not answer SIGTERM.
  const killer = setTimeout(() => gateway?.child.kill('SIGKILL'), 5_000);
  await gateway?.stop();
  clearTimeout(killer);
});

// biome-ignore lint/suspicious/noExplicitAny: guest values
type Check = (value: any) => void;
const invalidInput: Check = (v) => expect(v.error.code).toBe('invalid_input');

/** [attack, program, check of the program's value]. */
const ATTACKS: Array<[string, string, Check]> = [
  [
    'catastrophic pattern in an input schema',
    `return await tools.hostile.redos_in({s: 'a'.repeat(40) + '!'})`,
    invalidInput,
  ],
  [
    'catastrophic pattern in an output schema',
    'return await tools.hostile.redos_out({})',
    (v) => expect(v.error.code).toBe('invalid_output'),
  ],
  [
    'self-referencing input schema ($ref "#")',
    'return await tools.hostile.self_ref({})',
    invalidInput,
  ],
  [
    'a pattern RE2 cannot run is left to the upstream',
    `return (await tools.hostile.backref({s: 'xyz'})).data`,
    (v) => expect(JSON.parse(v)).toEqual({ s: 'xyz' }),
  ],
  [
    '1,000-deep schema: called and described',
    `const d = await catalog.tools.describe({namespace: 'hostile', name: 'deep'});
     return [(await tools.hostile.deep({a: 1})).ok, d.ok, d.data.inputSchema.description]`,
    (v) => {
      expect(v.slice(0, 2)).toEqual([true, true]);
      expect(v[2]).toContain('nested deeper');
    },
  ],
  [
    '7 MB schema described 100 times at once',
    `const all = await Promise.all(Array.from({length: 100}, () => catalog.tools.describe({namespace: 'hostile', name: 'huge'})));
     return [all.every((d) => d.ok), all[0].data.typescript.length < 20000, all[0].data.inputSchema.description]`,
    (v) => {
      expect(v.slice(0, 2)).toEqual([true, true]);
      expect(v[2]).toContain('larger than');
    },
  ],
  [
    '100,000-value enum called 2,000 times at once',
    `const all = await Promise.all(Array.from({length: 2000}, () => tools.hostile.big_enum({e: 'nope'})));
     return all.filter((r) => r.ok).length`,
    (v) => expect(v).toBe(2000),
  ],
  [
    '100 long catalog searches at once',
    `const all = await Promise.all(Array.from({length: 100}, () => catalog.tools.search({query: ${JSON.stringify(QUERY)}, limit: 100})));
     return all.filter((r) => r.ok && r.data.items.length > 0).length`,
    (v) => expect(v).toBe(100),
  ],
  [
    '10,000 catalog calls in a loop',
    `let n = 0;
     for (let i = 0; i < 10000; i++) if ((await catalog.namespaces.list()).ok) n++;
     return n`,
    (v) => expect(v).toBe(10_000),
  ],
  [
    'a search query of 100,000 characters is refused',
    `return await catalog.tools.search({query: 'alpha '.repeat(20000)})`,
    (v) => expect(v.error.message).toContain('query must be at most 512 characters'),
  ],
];

describe('a hostile upstream and a greedy guest cannot stall the gateway', () => {
  it.each(ATTACKS)(
    '%s',
    async (_name, program, check) => {
      const { body, slowestMs, probes } = await underAttack(program);
      expect(body.ok, JSON.stringify(body).slice(0, 500)).toBe(true);
      check(body.value);
      expect(slowestMs, `slowest of ${probes} trivial executions`).toBeLessThan(
        TRIVIAL_REQUEST_MAX_MS,
      );
    },
    120_000,
  );
});
