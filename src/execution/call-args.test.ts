import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../test/helpers.ts';
import { resolveConfig } from '../config/index.ts';
import { openStore, type Store } from '../store/index.ts';
import { silentLogger } from '../util/logger.ts';
import { createRuntime, type Runtime } from './index.ts';

const COUNTING = path.join(ROOT, 'test', 'fixtures', 'counting-server.mjs');
let runtime: Runtime;
let store: Store;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-call-args-'));
  store = openStore(dir);
  const config = resolveConfig(
    {
      code_execution_pool_size: 2,
      mcpServers: [{ name: 'counting', command: process.execPath, args: [COUNTING] }],
    },
    { baseDir: dir },
  );
  runtime = createRuntime(config, silentLogger(), {
    warmWorkers: 1,
    activityStore: store.activity,
  });
  await runtime.start();
});

afterAll(async () => {
  await runtime.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The program's value, and the ids of its activity record. */
async function run(code: string) {
  const result = await runtime.service.execute({ code });
  expect(result.envelope).toMatchObject({ ok: true });
  return { value: (result.envelope as { value: unknown }).value, activityId: result.activityId! };
}

/** How many calls of counting.strict reached the server so far. */
async function received(): Promise<number> {
  const { value } = await run("call_tool('counting', 'received', {}).result.content[0].text");
  return Number(value);
}

// [args breaking the schema, the property named in the message]
const BROKEN: Array<[string, string]> = [
  ["{count: 'three'}", 'counting.strict: args.count must be integer'],
  ["{label: 'no count'}", "counting.strict: args must have required property 'count'"],
  [
    "{count: 1, colour: 'red'}",
    'counting.strict: args must NOT have additional properties ("colour")',
  ],
  ['{count: 1, label: 7}', 'counting.strict: args.label must be string'],
];

describe('arguments are checked against the tool’s input schema before dispatch', () => {
  it.each(BROKEN)(
    'call_tool %s: INVALID_ARGS naming the property, nothing sent',
    async (args, message) => {
      const before = await received();
      const { value } = await run(`call_tool('counting', 'strict', ${args})`);
      expect(value).toEqual({ ok: false, error: { code: 'INVALID_ARGS', message } });
      expect(await received()).toBe(before);
    },
  );

  it.each(BROKEN)(
    'tools.* %s: invalid_input with the same message, nothing sent',
    async (args, message) => {
      const before = await received();
      const { value } = await run(`await tools.counting.strict(${args})`);
      expect(value).toEqual({
        ok: false,
        error: { code: 'invalid_input', message, retryable: false },
      });
      expect(await received()).toBe(before);
    },
  );

  it('call_tools refuses the breaking slot alone and sends the others', async () => {
    const before = await received();
    const { value } = await run(`call_tools([
      { server: 'counting', tool: 'strict', args: { count: 1 } },
      { server: 'counting', tool: 'strict', args: { count: 'two' } },
      { server: 'counting', tool: 'strict', args: { count: 3, label: 'x' } },
    ]).map((r) => r.ok ? r.result.content[0].text : r.error)`);
    expect(value).toEqual([
      '{"count":1}',
      { code: 'INVALID_ARGS', message: 'counting.strict: args.count must be integer' },
      '{"count":3,"label":"x"}',
    ]);
    expect(await received()).toBe(before + 2);
  });

  it('sends arguments that fit, and records a refused call as rejected in the history', async () => {
    const { value, activityId } = await run(`[
      call_tool('counting', 'strict', { count: 2 }).ok,
      call_tool('counting', 'strict', { count: 2.5 }).error.code,
      (await tools.counting.strict({ count: 'x' })).error.code,
    ]`);
    expect(value).toEqual([true, 'INVALID_ARGS', 'invalid_input']);
    const record = await runtime.activity!.get(activityId);
    expect(
      record!.children.map((c) => [c.status, c.error?.code ?? null, c.error?.message ?? null]),
    ).toEqual([
      ['success', null, null],
      ['rejected', 'INVALID_ARGS', 'counting.strict: args.count must be integer'],
      ['rejected', 'invalid_input', 'counting.strict: args.count must be integer'],
    ]);
  });
});
