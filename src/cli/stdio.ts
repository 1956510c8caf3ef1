/** @module `codemux stdio`: registration; the server itself loads only when the command runs. */
import type { Command } from 'commander';
import type { StdioFlags } from './stdio-server.ts';

export function registerStdio(program: Command): void {
  program
    .command('stdio')
    .description('Serve MCP over stdio (for Claude Desktop, the MCP Inspector, ...)')
    .option(
      '--config <path>',
      'MCP configuration file (default: $CODEMUX_CONFIG or ~/.codemux/mcp_config.json)',
    )
    .option('--log-level <level>', 'trace, debug, info, warn or error (logs go to stderr)')
    .option('--codemode', 'serve the code mode dialect: `execute` is the only tool')
    .action(async (flags: StdioFlags) => {
      const { runStdio } = await import('./stdio-server.ts');
      await runStdio(flags);
    });
}
