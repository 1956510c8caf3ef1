/**
 * @module MCP tasks as protocol revision 2025-11-25 has them (core protocol): the server's
 * `tasks` capability, the task-augmented tools/call's CreateTaskResult, and the answers of
 * tasks/get, tasks/result, tasks/list and tasks/cancel. The sessionful server (sdk 1.x) and
 * the 2.x server's 2025 stdio connections both register these.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../../errors/index.ts';
import type { Caller, Runtime } from '../../execution/index.ts';
import type { Dialect, DialectCall } from '../dialects.ts';
import type { ToolsCallParams } from '../tools-call.ts';
import { cancelTask, createTask, getTask, listTasks, waitTask, watchTask } from './run-tasks.ts';
import { INVALID_PARAMS, type RunTask, TASK_POLL_INTERVAL_MS, taskIdOf } from './task-of.ts';

/** The `_meta` key that ties tasks/result's answer to its task (2025-11-25). */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** What a 2025 server declares: tasks of tools/call, listed and cancelled. */
export const LEGACY_TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
};

/** A 2025 task: its fields, ttl (how long its answer is kept after its end) and pollInterval. */
export function legacyTask(runtime: Runtime, task: RunTask) {
  return {
    ...task.fields,
    ttl: runtime.config().codeExecution.resultTtlMs,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

/** True when a tools/call's params ask for a task (`params.task`, 2025-11-25). */
export function asksForTask(params: unknown): boolean {
  const task = (params as { task?: unknown } | undefined)?.task;
  return typeof task === 'object' && task !== null;
}

/**
 * A task-augmented tools/call: `{task}` at once (notifications/tasks/status through `notify`
 * as it changes), or the call's result when no run was kept.
 */
export async function legacyCreateTask(
  runtime: Runtime,
  dialect: Dialect,
  params: ToolsCallParams,
  call: DialectCall,
  notify?: (params: Record<string, unknown>) => Promise<void>,
): Promise<Record<string, unknown>> {
  const created = await createTask(runtime, dialect, params, call, '2025');
  if ('result' in created) return created.result;
  const task = legacyTask(runtime, created.task);
  if (notify)
    watchTask(runtime, call.caller, task.taskId, '2025', task.status, (changed) => {
      notify(legacyTask(runtime, changed)).catch(() => undefined);
    });
  return { task };
}

/** tasks/get. */
export async function legacyGetTask(runtime: Runtime, caller: Caller, params: unknown) {
  return legacyTask(runtime, await getTask(runtime, caller, taskIdOf(params), '2025'));
}

/**
 * tasks/result: waits for the run's end and answers what the tools/call would have answered
 * (with the related-task `_meta`), or the JSON-RPC error it would have thrown.
 */
export async function legacyTaskResult(
  runtime: Runtime,
  caller: Caller,
  params: unknown,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const taskId = taskIdOf(params);
  const { end } = await waitTask(runtime, caller, taskId, '2025', signal);
  if (!end) throw new RpcError(INVALID_PARAMS, `task ${taskId} has not ended`);
  if ('error' in end) throw new RpcError(end.error.code, end.error.message, dataOf(end.error.data));
  return {
    ...end.result,
    _meta: { ...end.result._meta, [RELATED_TASK_META_KEY]: { taskId } },
  };
}

/** tasks/list: the caller's tasks, all on one page. */
export async function legacyListTasks(runtime: Runtime, caller: Caller) {
  const tasks = await listTasks(runtime, caller, '2025');
  return { tasks: tasks.map((task) => legacyTask(runtime, task)) };
}

/** tasks/cancel: the cancelled task; a task that already ended is InvalidParams (2025-11-25). */
export async function legacyCancelTask(runtime: Runtime, caller: Caller, params: unknown) {
  const taskId = taskIdOf(params);
  const cancelled = await cancelTask(runtime, caller, taskId, '2025');
  if ('ended' in cancelled)
    throw new RpcError(
      INVALID_PARAMS,
      `Cannot cancel task ${taskId}: it is already ${cancelled.ended.fields.status}`,
    );
  return legacyTask(runtime, cancelled.task);
}

function dataOf(data: unknown): Record<string, unknown> | undefined {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : undefined;
}
