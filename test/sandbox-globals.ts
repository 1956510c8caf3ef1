/**
 * @module The global names of the real sandbox, read from a real run: a `code_execution`
 * program (the dialect with the most globals: `input`, `call_tool`, `call_tools`, `tools`,
 * `catalog`, `console`, `Intl` beside the language's own) lists `globalThis`'s own property
 * names. Used by scripts/sandbox-globals.js (which writes src/codetools/sandbox-globals.ts)
 * and by the test that fails when that file no longer matches the engine.
 */
import { resolveConfig } from '../src/config/index.ts';
import { createRuntime } from '../src/execution/index.ts';
import { silentLogger } from '../src/util/logger.ts';

/** Every own property name of the sandbox's `globalThis`, sorted. */
export async function probeSandboxGlobals(): Promise<string[]> {
  const config = resolveConfig(
    { code_execution_pool_size: 1, mcpServers: [] },
    { baseDir: process.cwd() },
  );
  const runtime = createRuntime(config, silentLogger(), { warmWorkers: 1 });
  await runtime.start();
  try {
    const { envelope } = await runtime.service.execute({
      code: 'Object.getOwnPropertyNames(globalThis)',
    });
    if (!envelope.ok)
      throw new Error(`the probe failed: ${envelope.error.code} ${envelope.error.message}`);
    return [...(envelope.value as string[])].sort();
  } finally {
    await runtime.stop();
  }
}
