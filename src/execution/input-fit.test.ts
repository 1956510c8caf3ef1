import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.ts';
import type { CodeTool } from '../store/index.ts';
import { silentLogger } from '../util/logger.ts';
import { createRuntime, type Runtime } from './index.ts';

const MB = 1_048_576;
let runtime: Runtime;

beforeAll(async () => {
  const config = resolveConfig(
    { code_execution_memory_limit_mb: 32, code_execution_pool_size: 2, mcpServers: [] },
    { baseDir: process.cwd() },
  );
  runtime = createRuntime(config, silentLogger(), { warmWorkers: 1 });
  await runtime.start();
});
afterAll(async () => {
  await runtime.stop();
});

/** `{rows: [1, 1, ...]}` of about `bytes` of JSON: numbers take about 10 times their text once parsed. */
const numbers = (bytes: number) => ({ rows: new Array(Math.floor(bytes / 2)).fill(1) });
const bytesOf = (input: unknown) => Buffer.byteLength(JSON.stringify({ input }));

async function run(code: string, input: unknown) {
  const result = await runtime.service.execute({ code, input, options: { timeout_ms: 120_000 } });
  return result.envelope as
    | { ok: true; value: unknown }
    | { ok: false; error: { code: string; message: string } };
}

describe('an input and the sandbox memory cap (code_execution_memory_limit_mb: 32)', () => {
  it('refuses a 6 MB input that cannot be parsed: INVALID_REQUEST naming input, its size and the cap', async () => {
    const input = numbers(6 * MB);
    const envelope = await run('Object.keys(input).length', input);
    expect(envelope.ok).toBe(false);
    if (envelope.ok) return;
    expect(envelope.error.code).toBe('INVALID_REQUEST');
    expect(envelope.error.message).toBe(
      `input is too large for the sandbox: ${bytesOf(input)} bytes of JSON do not fit, once parsed, in its memory cap of 32 MB (code_execution_memory_limit_mb); send a smaller input (a program can fetch large data itself with a tool call) or raise code_execution_memory_limit_mb`,
    );
  });

  it('runs a program on an input of the same shape just under what fits', async () => {
    // 2.5 MB of numbers: measured to fit under 32 MB up to about 3 MB (docs/engine.md).
    const input = numbers(2.5 * MB);
    expect(await run('Object.keys(input).length', input)).toEqual({ ok: true, value: 1 });
    expect(await run('input.rows.length', input)).toEqual({
      ok: true,
      value: input.rows.length,
    });
  });

  it('admits a 9 MB string, larger than a quarter of the cap, since it fits', async () => {
    const input = { s: 'x'.repeat(9 * MB) };
    expect(await run('input.s.length', input)).toEqual({ ok: true, value: 9 * MB });
  });

  it('refuses a text larger than the cap before it reaches the sandbox', async () => {
    const input = { s: 'x'.repeat(33 * MB) };
    const envelope = await run('1', input);
    expect(envelope).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    if (envelope.ok) return;
    expect(envelope.error.message).toContain(`${bytesOf(input)} bytes of JSON`);
  });
});

describe("a code tool's arguments and its memory cap", () => {
  const tool: CodeTool = {
    name: 'count',
    description: '',
    code: 'rows.length',
    timeout_ms: 60_000,
    memory_limit_mb: 16,
    enabled: true,
    allowed_servers: [],
    params: [{ name: 'rows', description: '', type: 'array', required: true, default_value: null }],
    version: 1,
    created_at: '',
    updated_at: '',
  };

  it('refuses arguments that cannot be parsed under memory_limit_mb, naming them and the cap', async () => {
    const args = numbers(3 * MB);
    const result = await runtime.service.runCodeTool(tool, args);
    expect(result.envelope).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    const { message } = (result.envelope as { error: { message: string } }).error;
    expect(message).toMatch(
      /^arguments are too large for the sandbox: \d+ bytes of JSON do not fit, once parsed, in its memory cap of 16 MB \(the code tool's memory_limit_mb\)/,
    );
  });

  it('runs with arguments that fit', async () => {
    const result = await runtime.service.runCodeTool(tool, numbers(MB));
    expect(result.envelope).toEqual({ ok: true, value: MB / 2 });
  });
});
