/** @module `codemux serve`: registration; the gateway loads only when the command runs. */
import type { Command } from 'commander';
import type { ServeFlags } from './serve-run.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the gateway: MCP at /mcp, REST at /api/v1, live upstream servers')
    .option(
      '--config <path>',
      'MCP configuration file (default: $CODEMUX_CONFIG or ~/.codemux/mcp_config.json)',
    )
    .option('--listen <host:port>', "listen address (default: the config's listen, 127.0.0.1:8080)")
    .option('--log-level <level>', 'trace, debug, info, warn or error (logs go to stderr)')
    .action(async (flags: ServeFlags) => {
      const { runServe } = await import('./serve-run.ts');
      await runServe(flags);
    });
}
