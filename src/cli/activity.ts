/**
 * @module `codemux activity list|show`: registration; the history is read by activity-run.ts, loaded
 * when the command runs.
 */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

export function registerActivity(program: Command): void {
  const activity = program
    .command('activity')
    .description('The activity history: every execution and the upstream calls it made');
  const listCommand = activity
    .command('list')
    .description('List records, newest first (through the gateway, else from the database)')
    .option('--limit <n>', 'records per page (1-500, default 50)')
    .option('--offset <n>', 'records to skip')
    .option('--status <status>', 'success, tool_error, error, blocked or rejected')
    .option('--server <name>', 'calls to this upstream server')
    .option('--kind <kind>', 'execution or tool_call')
    .option('--parent-id <id>', 'the calls of one execution')
    .option('--since <time>', 'records that started at or after this ISO 8601 time')
    .option('--until <time>', 'records that started before this ISO 8601 time')
    .option('--surface <surface>', 'mcp, rest, cli, codemode, code_tool or ui')
    .option('--caller <caller>', 'admin or token:<name>')
    .option('--tool <name>', 'calls to this tool (a code tool: its executions)')
    .option('--search <text>', 'text in the code, the input or the arguments (case-insensitive)');
  addConfigOption(listCommand);
  addGatewayOptions(listCommand);
  addOutputOption(listCommand, ['table', 'json']).action(
    lazyAction(async () => (await import('./activity-run.ts')).list),
  );
  const showCommand = activity
    .command('show <id>')
    .description('One record with its calls, in the order they were made');
  addConfigOption(showCommand);
  addGatewayOptions(showCommand);
  addOutputOption(showCommand, ['text', 'json']).action(
    lazyAction(async () => (await import('./activity-run.ts')).show),
  );
}
