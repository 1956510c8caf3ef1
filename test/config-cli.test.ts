/** The config as the CLI reports it: every mistake of a bad file at once. */
import { describe, expect, it } from 'vitest';
import { runCli, writeConfig } from './helpers.ts';

describe('a config with an unknown key and an invalid value', () => {
  // One row each: the config, the warnings it must print before the error line.
  it.each([
    [
      'a top-level range error',
      { code_execution_timout_ms: 5, code_execution_pool_size: 500, mcpServers: {} },
      [
        /unknown key "code_execution_timout_ms" at the top level; did you mean `code_execution_timeout_ms`\?/,
      ],
      /field "code_execution_pool_size" must be an integer from 1 to 100$/,
    ],
    [
      "a server's range error, with keys misspelt at both levels",
      {
        code_execution_timout_ms: 5,
        mcpServers: { gh: { command: 'gh-mcp', arg: ['x'], queue_size: -1 } },
      },
      [
        /unknown key "code_execution_timout_ms" at the top level; did you mean `code_execution_timeout_ms`\?/,
        /unknown key "arg" in mcpServers\.gh; did you mean `args`\?/,
      ],
      /field "mcpServers\.gh\.queue_size" must be an integer from 0 to 100000$/,
    ],
  ])('reports both for %s (exit 2)', async (_what, config, warnings, error) => {
    const file = writeConfig(config);
    for (const command of [['servers', 'list'], ['serve']]) {
      const out = await runCli([...command, '--config', file]);
      expect(out.code, command.join(' ')).toBe(2);
      const lines = out.stderr.trim().split('\n');
      expect(lines, out.stderr).toHaveLength(warnings.length + 1);
      for (const [i, warning] of warnings.entries()) {
        expect(lines[i]).toMatch(`codemux: warning: ${file}: `);
        expect(lines[i]).toMatch(warning);
      }
      expect(lines.at(-1)).toMatch(`codemux: ${file}: `);
      expect(lines.at(-1)).toMatch(error);
    }
  });
});
