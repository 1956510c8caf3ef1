/**
 * @module The two MCP dialects codemux serves, apart from any SDK: what `tools/list` answers and
 * what a `tools/call` runs, for one caller. The sessionful 2025 server (sdk 1.x, server.ts) and
 * the server of the 2.x SDK (generation-server.ts: 2026-07-28, and stdio) both answer with these,
 * so the two protocol generations can never offer different tools or run them differently.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../errors/index.ts';
import {
  type Caller,
  type CallerChannel,
  continueRun,
  continuesRun,
  type ExecuteOutcome,
  type ExecutionResult,
  executeRefusal,
  featureDisabled,
  type RunCallAnswer,
  type RunCallRequest,
  type RunKind,
  type Runtime,
  refusedResult,
  startCodeExecution,
  startCodeTool,
  startExecute,
} from '../execution/index.ts';
import type { TraceSpan } from '../telemetry/index.ts';
import {
  CODE_EXECUTION_TOOL,
  codeExecutionTool,
  disabledCodeExecutionTool,
  toCallToolResult,
  toRunningResult,
} from './code-execution-tool.ts';
import { codeToolDefinition, toCodeToolResult, visibleCodeTools } from './code-tool.ts';
import { EXECUTE_TOOL, executeTool, toExecuteResult, toExecuteRunning } from './execute-tool.ts';
import { RECONNECTION_PROBE_TOOL, reconnectionProbe } from './reconnection-probe.ts';
import type { ToolsCallParams } from './tools-call.ts';
import { visibleServers } from './visible-servers.ts';

/** `code_execution` and the code tools, or code mode's single `execute`. */
export type Dialect = 'default' | 'codemode';

/** Each dialect's server identity. */
export const SERVER_INFO: Record<Dialect, { name: string; version: string }> = {
  default: { name: 'codemux', version: '0.1.0' },
  codemode: { name: 'codemux-codemode', version: '0.1.0' },
};

/** What a server of `dialect` declares: tools (code mode's never change) and logging. */
export function dialectCapabilities(dialect: Dialect) {
  return { tools: dialect === 'default' ? { listChanged: true } : {}, logging: {} };
}

/** JSON-RPC InvalidParams: an unknown tool on the default dialect. */
const INVALID_PARAMS = -32602;
/** Arion's JSON-RPC code for a tool name that is not `execute`. */
export const TOOL_NOT_FOUND = -32002;

/**
 * Marks code mode's "not found" in an error's data: the 2.x SDK sends -32002 as -32602 (the
 * 2026-07-28 spec reuses -32002), and a 2025 stdio connection takes it back to Arion's -32002.
 */
export const TOOL_NOT_FOUND_DATA = { codemux: 'tool_not_found' } as const;

/** What one tools/call brings besides its params. */
export interface DialectCall {
  caller: Caller;
  channel: CallerChannel;
  signal?: AbortSignal;
  /** Closes the call's SSE stream (a 2025 Streamable HTTP session with an event store). */
  closeSSEStream?: () => void;
  /** Progress notifications on the request (it carried a progressToken). */
  progress?: (message: string) => void;
  /** An MCP task: the run is kept from its start and the call answers at once (tasks/). */
  keep?: boolean;
  /** The call's SERVER span (traces on, tool-call-span.ts): the run it starts is its child. */
  span?: TraceSpan;
}

/** The tools `caller` sees on `dialect`, in a stable order (code_execution or execute first, code tools by name). */
export function listDialectTools(runtime: Runtime, dialect: Dialect, caller: Caller): Tool[] {
  const config = runtime.config();
  if (dialect === 'codemode') {
    const disabled = config.codeExecution.enabled
      ? undefined
      : featureDisabled(config, caller).message;
    return [executeTool(disabled)];
  }
  const tool = config.codeExecution.enabled
    ? codeExecutionTool(visibleServers(runtime, caller), config.descriptionBudgetTokens)
    : disabledCodeExecutionTool(featureDisabled(config, caller).message);
  return [tool, ...visibleCodeTools(runtime, caller).map(codeToolDefinition)];
}

/** A tools/call's outcome before formatting: a run's answer (and the tool called), or a result. */
export type DialectOutcome =
  | { answer: RunCallAnswer; called: RunKind }
  | { result: CallToolResult };

/** Runs one tools/call of `dialect`; a refusal of the call itself throws an RpcError. */
export async function callDialectTool(
  runtime: Runtime,
  dialect: Dialect,
  params: ToolsCallParams,
  call: DialectCall,
): Promise<CallToolResult> {
  const outcome = await runDialectTool(runtime, dialect, params, call);
  return 'result' in outcome ? outcome.result : toolResultOf(outcome.answer, outcome.called);
}

/**
 * Starts (or continues) the run a tools/call of `dialect` asks for and returns its answer
 * unformatted (an MCP task formats it later); a refusal of the call itself throws an RpcError.
 */
export async function runDialectTool(
  runtime: Runtime,
  dialect: Dialect,
  params: ToolsCallParams,
  call: DialectCall,
): Promise<DialectOutcome> {
  const { caller, channel, signal, progress, keep, span } = call;
  const request: RunCallRequest = { channel, signal, progress, keep, span };
  const args = params.arguments;
  if (dialect === 'codemode') {
    if (params.name !== EXECUTE_TOOL)
      throw new RpcError(TOOL_NOT_FOUND, `Tool '${params.name}' not found`, TOOL_NOT_FOUND_DATA);
    // Code mode's refusals (too many executions, invalid arguments) throw an RpcError too.
    const answer = continuesRun(args)
      ? await continueRun(runtime, atOnce(args, 'timeout_ms', keep), 'execute', caller, request)
      : await startExecute(runtime, args, caller, request);
    return { answer, called: 'execute' };
  }
  if (params.name === RECONNECTION_PROBE_TOOL) return { result: reconnectionProbe(call) };
  if (params.name === CODE_EXECUTION_TOOL) {
    const answer = continuesRun(args)
      ? await continueRun(runtime, atOnce(args, 'wait_ms', keep), 'code_execution', caller, request)
      : await startCodeExecution(runtime, args, caller, request);
    return { answer, called: 'code_execution' };
  }
  const codeTool = runtime.codeTools?.find(params.name);
  // A disabled feature answers FEATURE_DISABLED for a tool that exists, as code_execution does.
  if (codeTool && (caller.kind === 'admin' || caller.codeTools?.includes(codeTool.name))) {
    const answer = await startCodeTool(runtime, codeTool, args, caller, request);
    return { answer, called: 'code_tool' };
  }
  throw new RpcError(
    INVALID_PARAMS,
    `Tool '${params.name}' not found; codemux offers ${CODE_EXECUTION_TOOL} and the code tools tools/list shows`,
  );
}

/** A continue asked as a task waits for nothing: the task answers at once, tasks/result waits. */
function atOnce(args: Record<string, unknown>, wait: string, keep?: boolean) {
  return keep ? { ...args, [wait]: 0 } : args;
}

/**
 * A run's answer as the tools/call result of the tool that was called: a run's end in its own
 * dialect (the result a run that never yielded gives), running in the tool's own shape, a
 * refused continue in the called tool's error shape.
 */
export function toolResultOf(answer: RunCallAnswer, called: RunKind): CallToolResult {
  if (answer.state === 'refused') {
    return called === 'execute'
      ? toExecuteResult(executeRefusal(answer.error))
      : toCallToolResult(refusedResult(answer.error));
  }
  if (answer.state === 'running') {
    return answer.kind === 'execute'
      ? toExecuteRunning(answer.snapshot)
      : toRunningResult(answer.snapshot);
  }
  if ('thrown' in answer.end) throw answer.end.thrown;
  const result = answer.end.result;
  if (answer.kind === 'execute') return toExecuteResult(result as ExecuteOutcome);
  if (answer.kind === 'code_tool') return toCodeToolResult(result as ExecutionResult);
  return toCallToolResult(result as ExecutionResult);
}
