/** @module `codemux token create|list|revoke`: registration; the token store loads only when the command runs (token-run.ts). */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addOutputOption } from './options.ts';

const run = () => import('./token-run.ts');

export function registerToken(program: Command): void {
  const token = program
    .command('token')
    .description('Agent tokens: API credentials limited to some servers');
  const configOption = [
    '--config <path>',
    'MCP configuration file (its data_dir holds the tokens)',
  ] as const;

  const create = token
    .command('create')
    .description('Create a token; it is printed once and stored only as a hash')
    .requiredOption('--name <name>', 'a name for the token (1-64 of A-Za-z0-9_.-)')
    .option('--servers <names>', 'comma-separated servers the token may call')
    .option('--code-tools <names>', 'comma-separated code tools the token may see and call')
    .option(...configOption);
  addOutputOption(create, ['text', 'json']).action(lazyAction(async () => (await run()).create));

  const list = token
    .command('list')
    .description('List agent tokens (names and servers; never the secrets)')
    .option(...configOption);
  addOutputOption(list, ['table', 'json']).action(lazyAction(async () => (await run()).list));

  token
    .command('revoke <name>')
    .description('Revoke an agent token at once')
    .option(...configOption)
    .action(lazyAction(async () => (await run()).revoke));
}
