/** @module `codemux code exec`: registration; the runtime loads only when a program runs (code-exec-run.ts). */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addLogOptions } from './options.ts';

export function registerCodeExec(code: Command): void {
  const exec = code
    .command('exec')
    .description('Execute JavaScript or TypeScript once against the configured upstream servers')
    .option('--code <source>', 'inline JavaScript/TypeScript code to execute')
    .option('--file <path>', 'path to a local JavaScript/TypeScript file (.ts means TypeScript)')
    .option(
      '--script <name>',
      'name of a stored script in scripts/ next to the config, resolved where it runs',
    )
    .option('--input <json>', 'input data as a JSON object', '{}')
    .option('--input-file <path>', 'path to a JSON file containing input data')
    .option('--language <language>', 'javascript or typescript (default: javascript)')
    .option(
      '--timeout <ms>',
      'execution timeout in milliseconds (1-600000; default from config, 120000)',
    )
    .option('--max-tool-calls <n>', 'maximum tool calls, 0 = unlimited (default from config, 0)')
    .option('--allowed-servers <names>', 'comma-separated list of server names the code may call')
    .option(
      '--typecheck <mode>',
      'type-check TypeScript (and // @ts-check JavaScript) first: off, warn or error (default from config, warn)',
    )
    .option(
      '--detach',
      'through the gateway: once the run yields (code_execution_yield_ms), print its running answer with its execution_id and exit 0 instead of waiting (codemux executions wait|cancel ID)',
    );
  addLogOptions(exec);
  addConfigOption(exec);
  addGatewayOptions(exec).action(
    lazyAction(async () => (await import('./code-exec-run.ts')).execCommand),
  );
}
