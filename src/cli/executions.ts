/**
 * @module `codemux executions list|wait|cancel`: registration; executions-run.ts (through the
 * running gateway, where runs that outlive their request live) loads only when the command runs.
 */
import { type Command, Option } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

export function registerExecutions(program: Command): void {
  const executions = program
    .command('executions')
    .description(
      'Runs that answered "running" (code_execution_yield_ms): list them, wait for one, cancel one',
    );
  const listCommand = executions
    .command('list')
    .description(
      'List the runs that yielded (running, or done with their answer kept), newest first',
    )
    .addOption(
      new Option('--status <status>', 'only runs still running, or done').choices([
        'running',
        'done',
      ]),
    )
    .option('--json', 'print {"items": [...]} as GET /api/v1/executions answers it (-o json)');
  addConfigOption(listCommand);
  addGatewayOptions(listCommand);
  addOutputOption(listCommand, ['table', 'json']).action(
    lazyAction(async () => (await import('./executions-run.ts')).list),
  );
  const waitCommand = executions
    .command('wait <id>')
    .description(
      "Wait for a run's end and print its final answer as `code exec` does (same exit code)",
    );
  addConfigOption(waitCommand);
  addGatewayOptions(waitCommand).action(
    lazyAction(async () => (await import('./executions-run.ts')).wait),
  );
  const cancelCommand = executions
    .command('cancel <id>')
    .description(
      'Stop a run with CANCELLED (its in-flight calls are cancelled, held calls never sent) and print its final answer',
    );
  addConfigOption(cancelCommand);
  addGatewayOptions(cancelCommand).action(
    lazyAction(async () => (await import('./executions-run.ts')).cancel),
  );
}
