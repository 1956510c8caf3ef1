/**
 * @module MCP tasks over runs (runtime.runs), apart from any SDK: a task-augmented tools/call
 * starts its run kept from the start and answers with the task; tasks/get, tasks/result,
 * tasks/list and tasks/cancel read, wait on and cancel runs by id, for their owner (or the
 * admin) only: anyone else gets InvalidParams, as for an unknown task.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../../errors/index.ts';
import type { Caller, ErrorBody, Runtime } from '../../execution/index.ts';
import { type Dialect, type DialectCall, runDialectTool, toolResultOf } from '../dialects.ts';
import type { ToolsCallParams } from '../tools-call.ts';
import {
  INVALID_PARAMS,
  type RunTask,
  type TaskRevision,
  type TaskStatus,
  taskOf,
} from './task-of.ts';

/** The longest single wait of tasks/result; it waits again until the run ends or the request aborts. */
const RESULT_WAIT_SLICE_MS = 600_000;

/** What a task-augmented tools/call answers: the task, or a result when no run was kept. */
export type CreatedTask = { task: RunTask } | { result: CallToolResult };

/**
 * Runs a task-augmented tools/call: its run is kept from its start and the call answers with
 * the task at once. A call that keeps no run (refused: QUEUE_FULL; the reconnection probe)
 * answers with its result; a refused continue throws InvalidParams.
 */
export async function createTask(
  runtime: Runtime,
  dialect: Dialect,
  params: ToolsCallParams,
  call: DialectCall,
  revision: TaskRevision,
): Promise<CreatedTask> {
  const outcome = await runDialectTool(runtime, dialect, params, { ...call, keep: true });
  if ('result' in outcome) return outcome;
  const { answer, called } = outcome;
  if (answer.state === 'refused') throw refusal(answer.error);
  const kept = await runtime.runs.resume(
    answer.snapshot.execution_id,
    call.caller,
    { waitMs: 0 },
    {},
  );
  if (kept.state === 'refused') return { result: toolResultOf(answer, called) };
  return { task: taskOf({ ...kept, kind: answer.kind }, revision) };
}

/**
 * Task `id` of `caller` as it stands now, or once it ended when that comes within `waitMs`
 * (InvalidParams when the caller may see no such run).
 */
export async function getTask(
  runtime: Runtime,
  caller: Caller,
  id: string,
  revision: TaskRevision,
  waitMs = 0,
  signal?: AbortSignal,
): Promise<RunTask> {
  const answer = await runtime.runs.resume(id, caller, { waitMs }, { signal });
  if (answer.state === 'refused') throw refusal(answer.error);
  return taskOf({ ...answer, kind: answer.snapshot.kind }, revision);
}

/** Waits for task `id` of `caller` to end (or `signal` to abort) and returns it ended. */
export async function waitTask(
  runtime: Runtime,
  caller: Caller,
  id: string,
  revision: TaskRevision,
  signal?: AbortSignal,
): Promise<RunTask> {
  for (;;) {
    const answer = await runtime.runs.resume(
      id,
      caller,
      { waitMs: RESULT_WAIT_SLICE_MS },
      { signal },
    );
    if (answer.state === 'refused') throw refusal(answer.error);
    if (answer.state === 'ended')
      return taskOf({ ...answer, kind: answer.snapshot.kind }, revision);
    if (signal?.aborted)
      throw new RpcError(INVALID_PARAMS, `tasks/result: the request for task ${id} was cancelled`);
  }
}

/**
 * Cancels task `id` of `caller` (its run ends with CANCELLED) and returns the task after;
 * `ended` when it had ended before (the answer stays readable).
 */
export async function cancelTask(
  runtime: Runtime,
  caller: Caller,
  id: string,
  revision: TaskRevision,
): Promise<{ task: RunTask } | { ended: RunTask }> {
  const answer = await runtime.runs.resume(id, caller, { waitMs: 0, cancel: true }, {});
  if (answer.state === 'refused') {
    if (answer.error.code !== 'INVALID_REQUEST') throw refusal(answer.error);
    return { ended: await getTask(runtime, caller, id, revision) };
  }
  return { task: taskOf({ ...answer, kind: answer.snapshot.kind }, revision) };
}

/** The tasks `caller` may see (the runs runs.list shows), newest first. */
export async function listTasks(
  runtime: Runtime,
  caller: Caller,
  revision: TaskRevision,
): Promise<RunTask[]> {
  const snapshots = await runtime.runs.list(caller);
  const tasks = await Promise.all(
    snapshots.map((s) => getTask(runtime, caller, s.execution_id, revision).catch(() => undefined)),
  );
  return tasks.filter((task): task is RunTask => task !== undefined);
}

/**
 * Calls `notify` with the task each time the status of run `id` changes from `status` (it
 * starts or stops waiting on an approval, it ends): notifications/tasks/status. Nothing when
 * the run is not alive here.
 */
export function watchTask(
  runtime: Runtime,
  caller: Caller,
  id: string,
  revision: TaskRevision,
  status: TaskStatus,
  notify: (task: RunTask) => void,
): void {
  const run = runtime.runs.liveRuns().find((r) => r.id === id);
  if (!run) return;
  let last = status;
  // One read at a time, in order: a stale read must never follow the end.
  let reads = Promise.resolve();
  const check = () => {
    reads = reads
      .then(() => getTask(runtime, caller, id, revision))
      .then(
        (task) => {
          if (task.fields.status === last) return;
          last = task.fields.status;
          notify(task);
        },
        () => undefined,
      );
  };
  const stop = run.on((event) => {
    if (event === 'log') return;
    if (event === 'end') stop();
    check();
  });
  // It may have changed between the task's answer and now.
  check();
}

/** A refused task request as InvalidParams, codemux's code and message kept in its data. */
function refusal(error: ErrorBody): RpcError {
  return new RpcError(INVALID_PARAMS, error.message, { code: error.code });
}
