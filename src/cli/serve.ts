/** @module `codemux serve`: registration; the gateway loads only when the command runs. */
import type { Command } from 'commander';
import { addConfigOption, addLogOptions } from './options.ts';
import type { ServeFlags } from './serve-run.ts';

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('Run the gateway: MCP at /mcp, REST at /api/v1, live upstream servers')
    .option(
      '--listen <host:port>',
      "listen address (default: the config's listen, 127.0.0.1:8080)",
    );
  addConfigOption(command);
  addLogOptions(command).action(async (flags: ServeFlags) => {
    const { runServe } = await import('./serve-run.ts');
    await runServe(flags);
  });
}
