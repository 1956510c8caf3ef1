/**
 * @module Each tool's call as a run, for every surface (MCP, REST, the CLI through REST):
 * `code_execution`, a code tool and `execute` start a run that yields after
 * code_execution_yield_ms; `execution_id` continues one (wait, cancel). What the answer looks
 * like is the surface's: it gets the run's end (its dialect's own result, byte for byte what a
 * run that never yielded answers) or where it stands.
 */
import type { CodeTool } from '../../store/index.ts';
import { ATTR } from '../../telemetry/index.ts';
import type { CodeModeService, ExecuteOutcome } from '../code-mode-service.ts';
import { errorResult } from '../execute-result.ts';
import type { CallerChannel } from '../policy/types.ts';
import { refusal } from '../run-frame.ts';
import type { ExecutionService, RunOptions } from '../service.ts';
import type { Caller, ErrorBody, ExecutionResult } from '../types.ts';
import { checkContinue } from './continue-request.ts';
import type { LiveRun, RunEnd, RunKind, RunSnapshot } from './live-run.ts';
import type { RunRequest, Runs, StartOptions } from './runs.ts';

/** What a run's call needs of the runtime. */
export interface RunCallDeps {
  runs: Runs;
  service: ExecutionService;
  execute: CodeModeService;
}

/** What a request brings besides its arguments. */
export interface RunCallRequest extends RunRequest {
  /** The caller's own client or terminal, asked first when a call needs approval. */
  channel?: CallerChannel;
  /** The surface recorded in the history, and a dry run (code_execution only). */
  run?: Pick<RunOptions, 'surface' | 'dryRun'>;
  /** The journal of the run this call resumes (runs/resume.ts). */
  resumed?: StartOptions['resumed'];
}

/** A tool call's answer: how its run ended, where it stands, or a refused continue. */
export type RunCallAnswer =
  | { state: 'ended'; kind: RunKind; end: RunEnd<unknown>; snapshot: RunSnapshot }
  | { state: 'running'; kind: RunKind; snapshot: RunSnapshot }
  | { state: 'refused'; error: ErrorBody };

/** A refused continue as code_execution's answer (nothing ran). */
export function refusedResult(error: ErrorBody): ExecutionResult {
  return refusal(error, performance.now());
}

/** A refused continue as execute's answer: an error whose diagnostic carries the code. */
export function executeRefusal(error: ErrorBody): ExecuteOutcome {
  return {
    result: errorResult({ kind: 'ExecutionFailure', message: error.message, code: error.code }),
  };
}

/** How a run's request reaches the service: its signal, its run, its channel as the run sees it. */
function runOptions<T>(run: LiveRun<T>, request: RunCallRequest) {
  return {
    channel: run.channel(request.channel),
    signal: run.signal,
    run,
  };
}

/** Starts code_execution as a run. */
export async function startCodeExecution(
  deps: RunCallDeps,
  args: unknown,
  caller: Caller,
  request: RunCallRequest,
): Promise<RunCallAnswer> {
  const answer = await deps.runs.start<ExecutionResult>(
    'code_execution',
    caller,
    request,
    (run) => deps.service.execute(args, caller, { ...request.run, ...runOptions(run, request) }),
    // A dry run sends nothing: there is nothing to journal.
    request.run?.dryRun
      ? {}
      : {
          journal: { request: args, surface: request.run?.surface ?? 'mcp' },
          resumed: request.resumed,
        },
  );
  return { ...answer, kind: 'code_execution' };
}

/** Starts one call of a code tool as a run. */
export async function startCodeTool(
  deps: RunCallDeps,
  tool: CodeTool,
  args: unknown,
  caller: Caller,
  request: RunCallRequest,
): Promise<RunCallAnswer> {
  const answer = await deps.runs.start<ExecutionResult>(
    'code_tool',
    caller,
    request,
    (run) => deps.service.runCodeTool(tool, args, caller, runOptions(run, request)),
    { tool: tool.name, journal: { request: args, surface: 'code_tool' }, resumed: request.resumed },
  );
  return { ...answer, kind: 'code_tool' };
}

/** Starts code mode's execute as a run (its JSON-RPC refusals end it as `thrown`). */
export async function startExecute(
  deps: RunCallDeps,
  args: unknown,
  caller: Caller,
  request: RunCallRequest,
): Promise<RunCallAnswer> {
  const answer = await deps.runs.start<ExecuteOutcome>(
    'execute',
    caller,
    request,
    (run) => deps.execute.execute(args, caller, runOptions(run, request)),
    { journal: { request: args, surface: 'codemode' }, resumed: request.resumed },
  );
  return { ...answer, kind: 'execute' };
}

/** Continues a run with a tool's continue arguments (`execution_id`, its wait, `cancel`). */
export async function continueRun(
  deps: RunCallDeps,
  args: Record<string, unknown>,
  dialect: 'code_execution' | 'execute',
  caller: Caller,
  request: RunRequest,
): Promise<RunCallAnswer> {
  const checked = checkContinue(args, dialect);
  if (!checked.ok) return { state: 'refused', error: checked.error };
  const { id, waitMs, cancel } = checked.value;
  request.span?.set(ATTR.executionId, id);
  const answer = await deps.runs.resume(
    id,
    caller,
    { waitMs: waitMs ?? deps.runs.defaultWaitMs, cancel },
    request,
  );
  if (answer.state === 'refused') return answer;
  return { ...answer, kind: answer.snapshot.kind };
}
