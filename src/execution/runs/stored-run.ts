/**
 * @module A yielded run as a row of the execution run store, and back: its snapshot as JSON,
 * its end as `{result}` or a thrown JSON-RPC refusal as `{thrown: {code, message, data}}`, so a
 * waiter on another instance gets the answer the owner would have given, byte for byte.
 */
import { RpcError } from '../../errors/index.ts';
import type { ExecutionRunRecord, ExecutionRunWrite } from '../../store/index.ts';
import type { LiveRun, RunEnd, RunSnapshot } from './live-run.ts';

/** How an end is kept: the service's result, or what it threw (an RpcError's fields). */
type StoredEnd =
  | { result: unknown }
  | { thrown: { code?: number; message: string; data?: Record<string, unknown> } };

/** The row of `run` as it stands now; `expiresAt` is its lease (running) or end of keeping (done). */
export function runRow(run: LiveRun, now: number, expiresAt: number): ExecutionRunWrite {
  const snapshot = run.snapshot();
  return {
    id: run.id,
    owner: run.owner,
    kind: run.kind,
    tool: run.tool ?? null,
    instance_id: run.instanceId,
    status: snapshot.status,
    started_at: snapshot.started_at,
    snapshot,
    answer: run.end ? storedEnd(run.end) : null,
    updated_at: new Date(now).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
  };
}

function storedEnd(end: RunEnd<unknown>): StoredEnd {
  if ('result' in end) return { result: end.result };
  const thrown = end.thrown;
  if (thrown instanceof RpcError) {
    return {
      thrown: {
        code: thrown.code,
        message: thrown.message,
        ...(thrown.data === undefined ? {} : { data: thrown.data }),
      },
    };
  }
  return { thrown: { message: thrown instanceof Error ? thrown.message : String(thrown) } };
}

/** The snapshot a row shows now: a running run's time goes on from its start. */
export function rowSnapshot(row: ExecutionRunRecord, now: number): RunSnapshot {
  const stored = row.snapshot as RunSnapshot;
  if (row.status === 'done') return { ...stored, status: 'done' };
  return {
    ...stored,
    status: 'running',
    elapsed_ms: Math.max(stored.elapsed_ms, now - Date.parse(row.started_at)),
  };
}

/** A done row's end, as the owner's run ended (a thrown refusal is an RpcError again). */
export function rowEnd<T>(row: ExecutionRunRecord): RunEnd<T> {
  const stored = row.answer as StoredEnd;
  if ('result' in stored) return { result: stored.result as T };
  const { code, message, data } = stored.thrown;
  return { thrown: code === undefined ? new Error(message) : new RpcError(code, message, data) };
}
