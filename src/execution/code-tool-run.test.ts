import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVERS } from '../../test/helpers.ts';
import { resolveConfig } from '../config/index.ts';
import type { CodeTool, CodeToolParam } from '../store/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { silentLogger } from '../util/logger.ts';
import { createRuntime, type Runtime } from './index.ts';
import type { Caller } from './types.ts';

let runtime: Runtime;
let store: Store;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-code-tool-run-'));
  store = openStore(dir);
  const config = resolveConfig(
    { code_execution_pool_size: 3, mcpServers: [SERVERS.fixture] },
    { baseDir: dir },
  );
  runtime = createRuntime(config, silentLogger(), {
    warmWorkers: 2,
    codeToolStore: store.codeTools,
  });
  await runtime.start();
});

afterAll(async () => {
  await runtime.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const param = (name: string, type: CodeToolParam['type'], over: Partial<CodeToolParam> = {}) => ({
  name,
  description: '',
  type,
  required: true,
  default_value: null,
  ...over,
});
const tool = (
  code: string,
  params: CodeToolParam[] = [],
  over: Partial<CodeTool> = {},
): CodeTool => ({
  name: 't',
  description: '',
  code,
  timeout_ms: 5000,
  memory_limit_mb: 128,
  enabled: true,
  allowed_servers: [],
  params,
  version: 1,
  created_at: '',
  updated_at: '',
  ...over,
});
const run = (t: CodeTool, args: unknown, caller?: Caller) =>
  runtime.service.runCodeTool(t, args, caller);

describe('a code tool call', () => {
  it('runs the worked example: $1,234.50', async () => {
    const formatCurrency = tool(
      `const formatter = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency_code,
});
formatter.format(amount);`,
      [param('amount', 'decimal'), param('currency_code', 'string')],
    );
    const result = await run(formatCurrency, { amount: 1234.5, currency_code: 'USD' });
    expect(result.envelope).toEqual({ ok: true, value: '$1,234.50' });
  });

  it('gives each param its JS type as a top-level variable, a date as a Date', async () => {
    const t = tool(
      'return { i: typeof i, i1: i + 1, d: d * 2, when: when instanceof Date && when.getUTCFullYear(), b: b === true, a: a.length, o: o.k, s }',
      [
        param('i', 'integer'),
        param('d', 'decimal'),
        param('when', 'date'),
        param('b', 'boolean'),
        param('a', 'array'),
        param('o', 'object'),
        param('s', 'string', { required: false, default_value: 'fallback' }),
      ],
    );
    const result = await run(t, {
      i: '41',
      d: '1.25',
      when: '2026-05-01',
      b: 'true',
      a: '[1,2,3]',
      o: { k: 'v' },
    });
    expect(result.envelope).toEqual({
      ok: true,
      value: { i: 'number', i1: 42, d: 2.5, when: 2026, b: true, a: 3, o: 'v', s: 'fallback' },
    });
  });

  it('leaves an omitted optional param without default undefined, and has no params object', async () => {
    // `x` is declared (reading it is no ReferenceError), its value undefined; null is omitted too.
    const t = tool("[x === undefined ? 'nobody' : x, typeof x, typeof params, typeof input]", [
      param('x', 'string', { required: false }),
    ]);
    for (const args of [{}, { x: null }]) {
      expect((await run(t, args)).envelope).toEqual({
        ok: true,
        value: ['nobody', 'undefined', 'undefined', 'undefined'],
      });
    }
  });

  it('gives optional params named like Object.prototype members their default when omitted', async () => {
    const t = tool('[constructor, toString, valueOf, typeof hasOwnProperty]', [
      param('constructor', 'string', { required: false, default_value: 'made' }),
      param('toString', 'integer', { required: false, default_value: 5 }),
      param('valueOf', 'boolean', { required: false, default_value: true }),
      param('hasOwnProperty', 'string', { required: false }),
    ]);
    expect((await run(t, {})).envelope).toEqual({
      ok: true,
      value: ['made', 5, true, 'undefined'],
    });
    expect((await run(t, { toString: '7', hasOwnProperty: 'x' })).envelope).toEqual({
      ok: true,
      value: ['made', 7, true, 'string'],
    });
  });

  // [arguments, the refusal's message]
  const REFUSED: Array<[unknown, RegExp]> = [
    [{}, /missing required param "n"/],
    [{ n: 'x' }, /param "n" must be an integer/],
    [{ n: 1, extra: true }, /unknown param "extra"/],
  ];
  it.each(REFUSED)('refuses %j before any JavaScript runs', async (args, message) => {
    const t = tool('n', [param('n', 'integer')]);
    const result = await run(t, args);
    expect(result.envelope).toMatchObject({ ok: false, error: { code: 'INVALID_ARGS' } });
    if (!result.envelope.ok) expect(result.envelope.error.message).toMatch(message);
  });

  it('stops at the tool’s own timeout', async () => {
    const result = await run(tool('while (true) {}', [], { timeout_ms: 300 }), {});
    expect(result.envelope).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
  });

  it('ends an allocation at the tool’s own memory cap, which a larger cap lets through', async () => {
    const big =
      'const a = []; for (let i = 0; i < 400; i++) a.push("x".repeat(1 << 16) + i); a.length';
    expect((await run(tool(big, [], { memory_limit_mb: 16 }), {})).envelope).toMatchObject({
      ok: false,
      error: { code: 'MEMORY_LIMIT_EXCEEDED' },
    });
    expect((await run(tool(big, [], { memory_limit_mb: 128 }), {})).envelope).toEqual({
      ok: true,
      value: 400,
    });
  });

  it('is the language only without allowed_servers', async () => {
    const result = await run(
      tool('[typeof call_tool, typeof tools, typeof catalog, typeof console]'),
      {},
    );
    expect(result.envelope).toEqual({
      ok: true,
      value: ['undefined', 'undefined', 'undefined', 'object'],
    });
  });

  it('calls the servers it lists, under the same policy as code_execution', async () => {
    const t = tool(
      `const a = call_tool('fixture', 'echo', { message: 'hi' });
       const b = call_tool('other', 'echo', {});
       return [a.ok, b.error.code, (await tools.fixture.echo({ message: 'x' })).ok]`,
      [],
      { allowed_servers: ['fixture'] },
    );
    const result = await run(t, {});
    expect(result.envelope).toEqual({ ok: true, value: [true, 'SERVER_NOT_ALLOWED', true] });
  });

  it('refuses an agent token whose scope does not name the tool', async () => {
    const agent = (codeTools: string[]): Caller => ({
      kind: 'agent',
      name: 'a',
      servers: [],
      codeTools,
    });
    expect((await run(tool('1'), {}, agent(['other']))).envelope).toMatchObject({
      ok: false,
      error: { code: 'ACCESS_DENIED' },
    });
    expect((await run(tool('1'), {}, agent(['t']))).envelope).toEqual({ ok: true, value: 1 });
  });
});

describe('Intl in every dialect', () => {
  // [program, value]
  const FORMATS: Array<[string, unknown]> = [
    [
      `new Intl.NumberFormat('en-US', {style: 'currency', currency: 'EUR'}).format(-1234.567)`,
      '-€1,234.57',
    ],
    [
      `new Intl.NumberFormat('en-US', {style: 'currency', currency: 'JPY'}).format(1234.5)`,
      '¥1,235',
    ],
    [`new Intl.NumberFormat('en-US', {style: 'percent'}).format(0.256)`, '26%'],
    [`new Intl.NumberFormat('en-US', {maximumFractionDigits: 2}).format(1.005)`, '1.01'],
    [
      `new Intl.NumberFormat('en-US', {minimumFractionDigits: 2, useGrouping: false}).format(1234)`,
      '1234.00',
    ],
    [`(1234567.891).toLocaleString()`, '1,234,567.891'],
    [`(0.5).toLocaleString('en-US', {style: 'percent'})`, '50%'],
    [
      `Intl.NumberFormat('en-US', {style: 'currency', currency: 'USD'}).formatToParts(-1).map(p => p.type).join()`,
      'minusSign,currency,integer,decimal,fraction',
    ],
  ];
  it.each(FORMATS)('code_execution: %s', async (code, expected) => {
    expect((await runtime.service.execute({ code })).envelope).toEqual({
      ok: true,
      value: expected,
    });
  });

  // [program, the RangeError's text]
  const REFUSED: Array<[string, string]> = [
    [`new Intl.NumberFormat('de-DE').format(1)`, 'Unsupported locale "de-DE"'],
    [`(1).toLocaleString('fr')`, 'Unsupported locale "fr"'],
    [`new Intl.NumberFormat('en-US', {notation: 'compact'})`, 'Unsupported option notation'],
    [`new Intl.DateTimeFormat('en-US')`, 'Intl.DateTimeFormat is not available'],
  ];
  it.each(REFUSED)('a clear RangeError: %s', async (code, message) => {
    const result = await runtime.service.execute({ code });
    expect(result.envelope).toMatchObject({ ok: false, error: { code: 'RUNTIME_ERROR' } });
    if (!result.envelope.ok)
      expect(result.envelope.error.message).toContain(`RangeError: ${message}`);
  });

  it('execute (code mode)', async () => {
    const result = await runtime.execute.execute({
      code: `return new Intl.NumberFormat('en-US', {style: 'currency', currency: 'GBP'}).format(9.5)`,
    });
    expect(JSON.stringify(result)).toContain('£9.50');
  });
});
