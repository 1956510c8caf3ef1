/**
 * @module `codemux tools held|approve`: registration; tools-run.ts (through the running gateway, whose
 * pins decide) loads only when the command runs.
 */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

export function registerTools(program: Command): void {
  const tools = program
    .command('tools')
    .description('Tool-definition pinning: tools held until approved (see docs/pinning.md)');
  const heldCommand = tools
    .command('held')
    .description('List the tools held because their definition changed or is new');
  addConfigOption(heldCommand);
  addGatewayOptions(heldCommand);
  addOutputOption(heldCommand, ['table', 'json']).action(
    lazyAction(async () => (await import('./tools-run.ts')).held),
  );
  const approveCommand = tools
    .command('approve <target>')
    .description(
      'Approve SERVER.TOOL (or every held tool of SERVER): shows the difference and asks on a terminal',
    )
    .option(
      '--sha256 <hex>',
      'approve exactly the definition with this sha256 (`tools held -o json`)',
    )
    .option('-y, --yes', 'approve the definitions listed now without asking (review them first)');
  addConfigOption(approveCommand);
  addGatewayOptions(approveCommand);
  addOutputOption(approveCommand, ['text', 'json']).action(
    lazyAction(async () => (await import('./tools-run.ts')).approve),
  );
}
