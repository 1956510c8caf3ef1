/** @module `codemux stdio`: registration; the server itself loads only when the command runs. */
import type { Command } from 'commander';
import { addConfigOption, addLogOptions } from './options.ts';
import type { StdioFlags } from './stdio-server.ts';

export function registerStdio(program: Command): void {
  const command = program
    .command('stdio')
    .description('Serve MCP over stdio (for Claude Desktop, the MCP Inspector, ...)')
    .option('--codemode', 'serve the code mode dialect: `execute` is the only tool');
  addConfigOption(command);
  addLogOptions(command).action(async (flags: StdioFlags) => {
    const { runStdio } = await import('./stdio-server.ts');
    await runStdio(flags);
  });
}
