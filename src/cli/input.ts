/**
 * @module `codemux input list|answer|decline`: registration; input-run.ts (through the running
 * gateway, where the call that asked waits) loads only when the command runs.
 */
import { type Command, Option } from 'commander';
import { INPUT_STATUSES } from '../execution/policy/input-requests.ts';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerInput(program: Command): void {
  const input = program
    .command('input')
    .description('Requests for input an upstream server made during a call (MCP elicitation)');
  const listCommand = input
    .command('list')
    .description('List recent input requests, newest first (all statuses unless --status)')
    .addOption(
      new Option('--status <status>', 'only input requests with this status').choices(
        INPUT_STATUSES,
      ),
    );
  addConfigOption(listCommand);
  addGatewayOptions(listCommand);
  addOutputOption(listCommand, ['table', 'json']).action(
    lazyAction(async () => (await import('./input-run.ts')).list),
  );
  const answer = input
    .command('answer <id>')
    .description(
      "Answer an input request: each --set NAME=VALUE fills a field (typed by the server's form), or --json gives them all",
    )
    .option('--set <name=value>', 'a field of the form (repeat for each)', collect)
    .option('--json <object>', 'every field as one JSON object, e.g. {"name":"Ada"}');
  addConfigOption(answer);
  addGatewayOptions(answer);
  addOutputOption(answer, ['text', 'json']).action(
    lazyAction(async () => (await import('./input-run.ts')).answer),
  );
  const decline = input
    .command('decline <id>')
    .description('Decline an input request: the server is told the user declined');
  addConfigOption(decline);
  addGatewayOptions(decline);
  addOutputOption(decline, ['text', 'json']).action(
    lazyAction(async () => (await import('./input-run.ts')).decline),
  );
}
