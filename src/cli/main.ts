/**
 * @module The `codemux` command line: registers every command (cheaply: each action imports what it
 * needs when it runs) and turns what an action throws into a stderr line and an exit code.
 */
import { Command, CommanderError } from 'commander';
import { registerActivity } from './activity.ts';
import { registerApprovals } from './approvals.ts';
import { registerAuth } from './auth.ts';
import { CliError } from './cli-error.ts';
import { registerCodeExec } from './code-exec.ts';
import { registerCodeTools } from './code-tools.ts';
import { registerExecutions } from './executions.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { registerInput } from './input.ts';
import { registerScriptsList } from './scripts-list.ts';
import { registerServe } from './serve.ts';
import { registerServersList } from './servers-list.ts';
import { registerStdio } from './stdio.ts';
import { registerToken } from './token.ts';
import { registerTools } from './tools.ts';

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
registerActivity(program);
registerTools(program);
registerApprovals(program);
registerInput(program);
registerExecutions(program);
registerAuth(program);

/** True when the user asked for debug logs (flag or $CODEMUX_LOG_LEVEL): only then does an unexpected error show its stack. */
async function debugRequested(argv: readonly string[]): Promise<boolean> {
  // Loaded only here: the config module is not needed to register the commands.
  const { logLevelFrom } = await import('../config/load.ts');
  const at = argv.indexOf('--log-level');
  const flag = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--log-level='))?.slice(12);
  const level = logLevelFrom(flag, 'info');
  return level === 'debug' || level === 'trace';
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
  } else if (error instanceof CliError) {
    process.stderr.write(`codemux: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    // One line, never a stack, unless --log-level debug asks for it.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`codemux: unexpected error: ${message.split('\n')[0]}\n`);
    if (error instanceof Error && error.stack && (await debugRequested(process.argv))) {
      process.stderr.write(`${error.stack}\n`);
    }
    process.exitCode = EXIT_FAILED;
  }
}
