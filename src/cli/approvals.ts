/**
 * @module `codemux approvals list|args|approve|deny`: registration; approvals-run.ts (through the
 * running gateway, where held calls wait) loads only when the command runs.
 */
import { type Command, Option } from 'commander';
import { APPROVAL_STATUSES } from '../store/approval-store.ts';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

export function registerApprovals(program: Command): void {
  const approvals = program
    .command('approvals')
    .description('Calls held by tool_policy "ask" until someone approves or denies them');
  const listCommand = approvals
    .command('list')
    .description('List recent approvals, newest first (all statuses unless --status)')
    .addOption(
      new Option('--status <status>', 'only approvals with this status').choices(APPROVAL_STATUSES),
    );
  addConfigOption(listCommand);
  addGatewayOptions(listCommand);
  addOutputOption(listCommand, ['table', 'json']).action(
    lazyAction(async () => (await import('./approvals-run.ts')).list),
  );
  const argsCommand = approvals
    .command('args <id>')
    .description('Print the whole arguments of an approval as JSON (also those over 64 KiB)');
  addConfigOption(argsCommand);
  addGatewayOptions(argsCommand);
  argsCommand.action(lazyAction(async () => (await import('./approvals-run.ts')).args));
  for (const [decision, help] of [
    ['approve', 'Approve a held call: it is sent, once, with the arguments shown'],
    ['deny', 'Deny a held call: it is not sent and the program gets APPROVAL_DENIED'],
  ] as const) {
    const command = approvals.command(`${decision} <id>`).description(help);
    addConfigOption(command);
    addGatewayOptions(command);
    addOutputOption(command, ['text', 'json']).action(
      lazyAction(async () => (await import('./approvals-run.ts')).decide(decision)),
    );
  }
}
