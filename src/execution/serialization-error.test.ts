import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEMORY_LIMIT_MB } from '../config/defaults.ts';
import { resolveConfig } from '../config/index.ts';
import { silentLogger } from '../util/logger.ts';
import { createRuntime, type Runtime } from './index.ts';

const MESSAGE =
  'Result contains non-JSON-serializable values (functions, circular references, etc.)';
const HUGE = `'k'.repeat(3_000_000)`;
const CUT_KEY = `["${'k'.repeat(64)}…" (3000000 chars)]`;

/** Programs whose value JSON cannot carry, under keys of megabytes, and the path each names. */
const CASES: Array<[string, string, string]> = [
  [
    'a function under a 3 MB key',
    `const o = {}; o[${HUGE}] = () => 1; o`,
    `value${CUT_KEY} is a function`,
  ],
  [
    'a nested path through a 3 MB key',
    `const o = {a: [0, {}]}; o.a[1][${HUGE}] = {b: () => 1}; o`,
    `value.a[1]${CUT_KEY}.b is a function`,
  ],
  [
    'many 2 MB keys holding functions',
    `const o = {}; for (let i = 0; i < 4; i++) o[String(i).repeat(2_000_000)] = () => i; o`,
    `value["${'0'.repeat(64)}…" (2000000 chars)] is a function`,
  ],
  [
    'a circular reference under a 3 MB key',
    `const o = {}; o[${HUGE}] = o; o`,
    `value${CUT_KEY} is a circular reference`,
  ],
];

for (const memoryLimitMb of [DEFAULT_MEMORY_LIMIT_MB, 16]) {
  describe(`SERIALIZATION_ERROR under code_execution_memory_limit_mb: ${memoryLimitMb}`, () => {
    let runtime: Runtime;
    beforeAll(async () => {
      const config = resolveConfig(
        {
          code_execution_memory_limit_mb: memoryLimitMb,
          code_execution_pool_size: 1,
          mcpServers: [],
        },
        { baseDir: process.cwd() },
      );
      runtime = createRuntime(config, silentLogger(), { warmWorkers: 1 });
      await runtime.start();
    });
    afterAll(async () => {
      await runtime.stop();
    });

    const failure = async (code: string) => {
      const { envelope } = await runtime.service.execute({ code, options: { timeout_ms: 60_000 } });
      expect(envelope.ok).toBe(false);
      return (envelope as { error: { code: string; message: string; stack?: string } }).error;
    };

    it.each(CASES)('%s names its path with the key cut', async (_name, code, path) => {
      const error = await failure(code);
      expect(error).toEqual({ code: 'SERIALIZATION_ERROR', message: MESSAGE, stack: path });
    });

    it('cuts a long path to about 1 KiB, keeping its start and its end', async () => {
      const code = `let o = {f: () => 1}; for (let i = 0; i < 200; i++) o = {['k${'x'.repeat(60)}' + i]: o}; o`;
      const { code: errorCode, stack = '' } = await failure(code);
      expect(errorCode).toBe('SERIALIZATION_ERROR');
      expect(stack.length).toBeLessThan(1200);
      expect(stack.startsWith(`value.k${'x'.repeat(60)}199.k`)).toBe(true);
      expect(stack).toContain('…');
      expect(stack.endsWith(`.k${'x'.repeat(60)}0.f is a function`)).toBe(true);
    });
  });
}
