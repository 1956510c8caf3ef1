/**
 * @module A run as an MCP task (DESIGN "Runs that outlive their request"): the task's id is
 * the execution id, its status where the run stands, its result the tools/call result the
 * tool would have answered. Apart from any SDK: both protocol revisions read runs through it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../../errors/index.ts';
import type {
  ExecuteOutcome,
  ExecutionResult,
  RunCallAnswer,
  RunSnapshot,
} from '../../execution/index.ts';
import { toolResultOf } from '../dialects.ts';

/** How often a client is told to poll a task (`pollInterval`). */
export const TASK_POLL_INTERVAL_MS = 1_000;

/** JSON-RPC InvalidParams: an unknown task, or one the caller may not see. */
export const INVALID_PARAMS = -32602;
/** JSON-RPC InternalError: what a run that threw something other than an RpcError fails with. */
const INTERNAL_ERROR = -32603;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * The protocol revision a task is shown to: 2025-11-25 (tasks in the core protocol) or the
 * 2026-07-28 tasks extension (SEP-2663: a tool error is `completed` with `isError`, and a run
 * held on an approval the client cannot answer stays `working`).
 */
export type TaskRevision = '2025' | '2026';

/** A task's fields, the same on both revisions but for the names of ttl and pollInterval. */
export interface TaskFields {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
}

/** A run's task: where it stands and, once the run ended, how (its result, or the error it threw). */
export interface RunTask {
  fields: TaskFields;
  end?: { result: CallToolResult } | { error: { code: number; message: string; data?: unknown } };
}

/** An answer that names a run (a refused continue names none). */
export type RunStanding = Exclude<RunCallAnswer, { state: 'refused' }>;

/** The task of the run `answer` stands for, as `revision` shows it. */
export function taskOf(answer: RunStanding, revision: TaskRevision): RunTask {
  const { snapshot } = answer;
  const times = {
    createdAt: snapshot.started_at,
    lastUpdatedAt: new Date(Date.parse(snapshot.started_at) + snapshot.elapsed_ms).toISOString(),
  };
  if (answer.state === 'running') {
    const waiting = waitingMessage(snapshot);
    const status: TaskStatus = waiting && revision === '2025' ? 'input_required' : 'working';
    const message = waiting ?? snapshot.logs.at(-1);
    return {
      fields: {
        taskId: snapshot.execution_id,
        status,
        ...(message ? { statusMessage: message } : {}),
        ...times,
      },
    };
  }
  let result: CallToolResult;
  try {
    result = toolResultOf(answer, answer.kind);
  } catch (thrown) {
    const error =
      thrown instanceof RpcError
        ? {
            code: thrown.code,
            message: thrown.message,
            ...(thrown.data ? { data: thrown.data } : {}),
          }
        : {
            code: INTERNAL_ERROR,
            message: thrown instanceof Error ? thrown.message : String(thrown),
          };
    return {
      fields: {
        taskId: snapshot.execution_id,
        status: 'failed',
        statusMessage: error.message,
        ...times,
      },
      end: { error },
    };
  }
  const status: TaskStatus = cancelled(answer)
    ? 'cancelled'
    : result.isError && revision === '2025'
      ? 'failed'
      : 'completed';
  return { fields: { taskId: snapshot.execution_id, status, ...times }, end: { result } };
}

/** What a run held on approvals waits for, or undefined when it waits for none. */
function waitingMessage(snapshot: RunSnapshot): string | undefined {
  if (snapshot.waiting_for.length === 0) return undefined;
  const awaited = snapshot.waiting_for
    .map((a) => `approval ${a.approval_id} of ${a.server}.${a.tool}`)
    .join(', ');
  return `waiting for ${awaited} (decide it in the dashboard, over REST or with codemux approvals)`;
}

/** True when the run ended with CANCELLED (a cancel by id, tasks/cancel, or REST). */
function cancelled(answer: Extract<RunStanding, { state: 'ended' }>): boolean {
  if (!('result' in answer.end)) return false;
  if (answer.kind === 'execute')
    return (answer.end.result as ExecuteOutcome).result.error?.code === 'CANCELLED';
  const envelope = (answer.end.result as ExecutionResult).envelope;
  return !envelope.ok && envelope.error.code === 'CANCELLED';
}

/** `params.taskId` of a tasks/ request, or InvalidParams naming the field. */
export function taskIdOf(params: unknown): string {
  const taskId = (params as { taskId?: unknown } | undefined)?.taskId;
  if (typeof taskId !== 'string' || taskId === '')
    throw new RpcError(INVALID_PARAMS, 'params.taskId must be a string (the task)');
  return taskId;
}
