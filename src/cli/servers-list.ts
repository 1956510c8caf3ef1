/** @module `codemux servers list`: registration; servers-list-run.ts reads the states when the command runs. */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

export function registerServersList(program: Command): void {
  const list = program
    .command('servers')
    .description('Upstream servers')
    .command('list')
    .description('List the upstream servers and their state');
  addConfigOption(list);
  addGatewayOptions(list);
  addOutputOption(list, ['table', 'json']).action(
    lazyAction(async () => (await import('./servers-list-run.ts')).run),
  );
}
