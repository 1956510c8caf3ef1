/** @module The `codemux` command line. */
import { Command, CommanderError } from 'commander';
import { registerCodeExec } from './code-exec.ts';
import { registerCodeTools } from './code-tools.ts';
import { EXIT_USAGE } from './exit-codes.ts';
import { registerScriptsList } from './scripts-list.ts';
import { registerServe } from './serve.ts';
import { registerServersList } from './servers-list.ts';
import { registerStdio } from './stdio.ts';
import { registerToken } from './token.ts';

const program = new Command('codemux')
  .description('An MCP gateway with a code mode: one code_execution tool over all your MCP servers')
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError();

const code = program.command('code').description('Run code against the upstream servers');
registerCodeExec(code);
registerScriptsList(code);
registerCodeTools(program);
registerServe(program);
registerStdio(program);
registerServersList(program);
registerToken(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
  } else {
    process.stderr.write(`codemux: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
