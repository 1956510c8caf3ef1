/** @module `codemux code scripts list`: registration; scripts-list-run.ts lists the scripts when the command runs. */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

export function registerScriptsList(code: Command): void {
  const list = code
    .command('scripts')
    .description(
      'Stored scripts (files in scripts/ next to the config; there is no command that writes one)',
    )
    .command('list')
    .description('List the stored scripts code_execution can run');
  addConfigOption(list, 'MCP configuration file (its directory holds scripts/)');
  addGatewayOptions(list);
  addOutputOption(list, ['text', 'json', 'yaml']).action(
    lazyAction(async () => (await import('./scripts-list-run.ts')).run),
  );
}
