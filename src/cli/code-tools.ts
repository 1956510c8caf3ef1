/**
 * @module `codemux code-tools list|show|export|import`: registration; the database and the code
 * tools load only when the command runs (code-tools-run.ts).
 */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addOutputOption } from './options.ts';

const run = () => import('./code-tools-run.ts');

export function registerCodeTools(program: Command): void {
  const group = program
    .command('code-tools')
    .description('Code tools: named MCP tools made of a JavaScript body and typed parameters');
  const configOption = [
    '--config <path>',
    'MCP configuration file (its data_dir holds the code tools)',
  ] as const;

  const list = group
    .command('list')
    .description('List the code tools')
    .option(...configOption);
  addOutputOption(list, ['table', 'json']).action(lazyAction(async () => (await run()).list));

  group
    .command('show <name>')
    .description('Show one code tool with its params, as JSON')
    .option(...configOption)
    .action(lazyAction(async () => (await run()).show));

  group
    .command('export')
    .description('Write every code tool with its params as one JSON document')
    .option(...configOption)
    .option('--file <path>', 'write to this file instead of stdout')
    .action(lazyAction(async () => (await run()).exportAll));

  group
    .command('import <file>')
    .description('Create or replace the code tools of an exported document (all or nothing)')
    .option(...configOption)
    .action(lazyAction(async () => (await run()).importFile));
}
