/**
 * @module `codemux code exec` at work: flags to code_execution arguments, run once on the gateway
 * (else standalone, code-exec-standalone.ts), print the envelope, exit 0/1/2. A run that yields
 * on the gateway is waited for to its end (run-follow.ts), or left running with `--detach`.
 */
import fs from 'node:fs';
import { DEFAULT_YIELD_MS } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { loadConfigFrom, logFormatFrom, logLevelFrom } from '../config/load.ts';
import { ConfigError } from '../errors/index.ts';
import { allowsEverything } from '../execution/policy/tool-policy.ts';
import { createLogger } from '../util/logger.ts';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import { CLIENT_GRACE_MS, findGateway, gatewayRequest } from './gateway-client.ts';
import { watchHeld } from './held-notice.ts';
import { printConfigWarnings } from './load-config.ts';
import type { GatewayFlags } from './options.ts';
import { printJson, printUsageError } from './output.ts';
import { exitCodeOfAnswer, followRun, isRunning } from './run-follow.ts';

/** How long `code exec` waits for the gateway's answer when calls may be held for approval. */
const HELD_CLIENT_WAIT_MS = 86_400_000;

interface ExecFlags extends GatewayFlags {
  code?: string;
  file?: string;
  script?: string;
  input: string;
  inputFile?: string;
  language?: string;
  timeout?: string;
  maxToolCalls?: string;
  allowedServers?: string;
  typecheck?: string;
  logLevel?: string;
  logFormat?: string;
  config?: string;
  detach?: boolean;
}

/** Why `--detach` has nothing to detach from without a gateway. */
export const STANDALONE_DETACH_MESSAGE =
  '--detach needs a running gateway (`codemux serve`): without one the program runs inside this command and cannot outlive it; run without --detach to wait for its answer here';

class UsageError extends Error {}

function integerFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim()))
    throw new UsageError(`--${name} must be an integer (got "${value}")`);
  return Number(value);
}

function readInput(flags: ExecFlags): unknown {
  const text =
    flags.inputFile !== undefined ? readFile(flags.inputFile, '--input-file') : flags.input;
  try {
    return JSON.parse(text);
  } catch (error) {
    const source = flags.inputFile !== undefined ? `--input-file ${flags.inputFile}` : '--input';
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
}

function readFile(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${file}: ${(error as Error).message}`);
  }
}

/** Turns flags into code_execution arguments; throws UsageError for anything malformed. */
function toArguments(flags: ExecFlags): Record<string, unknown> {
  const sources = [flags.code, flags.file, flags.script].filter((f) => f !== undefined).length;
  if (sources !== 1) throw new UsageError('give exactly one of --code, --file or --script');
  if (flags.input !== '{}' && flags.inputFile !== undefined) {
    throw new UsageError('give at most one of --input and --input-file');
  }
  // --language is forwarded only when set, so its default never contradicts a stored .ts script.
  const language = flags.language ?? (flags.file?.endsWith('.ts') ? 'typescript' : undefined);
  const options: Record<string, unknown> = {};
  const timeout = integerFlag('timeout', flags.timeout);
  if (timeout !== undefined) options.timeout_ms = timeout;
  const maxToolCalls = integerFlag('max-tool-calls', flags.maxToolCalls);
  if (maxToolCalls !== undefined) options.max_tool_calls = maxToolCalls;
  if (flags.allowedServers !== undefined) {
    options.allowed_servers = flags.allowedServers
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  // Checked where it runs (INVALID_OPTIONS names the values), like every option.
  if (flags.typecheck !== undefined) options.typecheck = flags.typecheck;
  // --script sends only the name: the handler that runs it is the only thing that resolves it.
  const source =
    flags.script !== undefined
      ? { script: flags.script }
      : { code: flags.code ?? readFile(flags.file!, '--file') };
  return { ...source, ...(language ? { language } : {}), input: readInput(flags), options };
}

async function run(flags: ExecFlags): Promise<number> {
  let args: Record<string, unknown>;
  let config: ResolvedConfig;
  try {
    args = toArguments(flags);
    config = loadConfigFrom(flags.config, flags.listen);
    printConfigWarnings(config);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      if (error instanceof ConfigError) printConfigWarnings(error);
      await printUsageError(
        error instanceof ConfigError ? 'INVALID_CONFIG' : 'INVALID_REQUEST',
        error.message,
      );
      return EXIT_USAGE;
    }
    throw error;
  }
  const logger = createLogger(logLevelFrom(flags.logLevel, 'info'), logFormatFrom(flags.logFormat));
  const gateway = await findGateway(config, flags);
  if (gateway) {
    logger.debug({ daemon: gateway.url }, 'running on the codemux daemon');
    // A call held for approval stops the execution's clock: the answer may take as long as people
    // take to decide (each approval expires on its own), so the client then waits up to a day.
    const timeoutMs = allowsEverything(config.toolPolicy)
      ? ((args.options as { timeout_ms?: number }).timeout_ms ?? config.codeExecution.timeoutMs) +
        CLIENT_GRACE_MS
      : HELD_CLIENT_WAIT_MS;
    // A call held for approval is named on stderr with how to decide it (never a silent wait).
    const stopWatching = allowsEverything(config.toolPolicy)
      ? () => {}
      : watchHeld(gateway, process.stderr, config.toolPolicy.approvalChannels);
    let body: Record<string, unknown>;
    try {
      ({ body } = await gatewayRequest(gateway, 'POST', '/api/v1/code/exec', {
        body: args,
        timeoutMs,
      }));
      if (isRunning(body) && flags.detach) {
        const { request_id: _requestId, ...running } = body;
        await printJson(running);
        return EXIT_OK;
      }
      // A run that yielded: wait for its end, saying at each yield what it waits for.
      if (isRunning(body)) {
        const waitMs = config.codeExecution.yieldMs || DEFAULT_YIELD_MS;
        body = await followRun(gateway, body, process.stderr, waitMs);
      }
    } finally {
      stopWatching();
    }
    const { request_id: _requestId, ...envelope } = body;
    await printJson(envelope);
    return exitCodeOfAnswer(envelope);
  }
  if (flags.detach) {
    await printUsageError('INVALID_REQUEST', STANDALONE_DETACH_MESSAGE);
    return EXIT_USAGE;
  }
  const { runStandalone } = await import('./code-exec-standalone.ts');
  return runStandalone(config, args, logger);
}

/** The command's action: runs the program and exits with its envelope's code. */
export async function execCommand(flags: ExecFlags): Promise<void> {
  process.exitCode = await run(flags);
}
