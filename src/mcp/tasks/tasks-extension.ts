/**
 * @module MCP tasks as protocol revision 2026-07-28 has them: the tasks extension
 * (`io.modelcontextprotocol/tasks`, SEP-2663). A request whose client capabilities name the
 * extension gets a task for a run tool's call (a flat CreateTaskResult, `resultType: "task"`);
 * tasks/get answers the task with its result inlined once it ended; tasks/cancel acknowledges
 * (idempotently); tasks/update has nothing to take, as codemux asks nothing through a task.
 * Without the extension, these methods are refused with MissingRequiredClientCapability.
 */
import { RpcError } from '../../errors/index.ts';
import type { Caller, Runtime } from '../../execution/index.ts';
import type { Dialect, DialectCall } from '../dialects.ts';
import type { ToolsCallParams } from '../tools-call.ts';
import { cancelTask, createTask, getTask } from './run-tasks.ts';
import { type RunTask, TASK_POLL_INTERVAL_MS } from './task-of.ts';

/** The extension's identifier, under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a 2026 server declares under `capabilities.extensions`. */
export const TASKS_EXTENSION_CAPABILITY = { [TASKS_EXTENSION]: {} };

/** True when a request's client capabilities name the tasks extension. */
export function negotiatesTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/** A 2026 task: its fields, ttlMs (its answer is kept that long after its end) and pollIntervalMs. */
function extensionTask(runtime: Runtime, task: RunTask) {
  return {
    ...task.fields,
    ttlMs: runtime.config().codeExecution.resultTtlMs,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/**
 * How long a call waits for its run's end before answering with a task: the extension lets
 * the server answer a fast call at once (SEP-2663's immediate result), so most calls cost no
 * polling; a run still going by then is a task.
 */
export const IMMEDIATE_RESULT_MS = 500;

/**
 * A tools/call from a client that negotiated the extension: the tool's result when its run
 * ended within IMMEDIATE_RESULT_MS (or kept no run), else a CreateTaskResult.
 */
export async function extensionCreateTask(
  runtime: Runtime,
  dialect: Dialect,
  params: ToolsCallParams,
  call: DialectCall,
): Promise<Record<string, unknown>> {
  const created = await createTask(runtime, dialect, params, call, '2026');
  if ('result' in created) return created.result;
  const { taskId } = created.task.fields;
  const task = await getTask(
    runtime,
    call.caller,
    taskId,
    '2026',
    IMMEDIATE_RESULT_MS,
    call.signal,
  );
  if (task.end && 'result' in task.end) return task.end.result;
  if (task.end)
    throw new RpcError(task.end.error.code, task.end.error.message, dataOf(task.end.error.data));
  return { resultType: 'task', ...extensionTask(runtime, task) };
}

function dataOf(data: unknown): Record<string, unknown> | undefined {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : undefined;
}

/** tasks/get: the task, with `result` inlined once completed and `error` once failed. */
export async function extensionGetTask(runtime: Runtime, caller: Caller, taskId: string) {
  const task = await getTask(runtime, caller, taskId, '2026');
  const status = task.fields.status;
  const end =
    task.end && 'result' in task.end && status === 'completed'
      ? { result: task.end.result }
      : task.end && 'error' in task.end
        ? { error: task.end.error }
        : {};
  return { resultType: 'complete', ...extensionTask(runtime, task), ...end };
}

/** tasks/cancel: the run is cancelled (nothing when it already ended); an empty acknowledgement. */
export async function extensionCancelTask(runtime: Runtime, caller: Caller, taskId: string) {
  await cancelTask(runtime, caller, taskId, '2026');
  return { resultType: 'complete' };
}

/** tasks/update: codemux asks nothing through a task, so there is nothing to take; the task must be the caller's. */
export async function extensionUpdateTask(runtime: Runtime, caller: Caller, taskId: string) {
  await getTask(runtime, caller, taskId, '2026');
  return { resultType: 'complete' };
}
