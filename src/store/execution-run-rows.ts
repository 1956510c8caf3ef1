/** @module A yielded run as a row of either database: every column TEXT, `snapshot` and `answer` as JSON text. */
import type { ExecutionRunRecord, ExecutionRunWrite } from './execution-run-store.ts';

/** The columns the owner writes, in ExecutionRunRecord's field order. */
export const EXECUTION_RUN_COLUMNS = [
  'id',
  'owner',
  'kind',
  'tool',
  'instance_id',
  'status',
  'started_at',
  'snapshot',
  'answer',
  'updated_at',
  'expires_at',
] as const;

export type ExecutionRunRow = Record<
  (typeof EXECUTION_RUN_COLUMNS)[number] | 'cancel_requested_by',
  string | null
>;

export function executionRunOf(row: ExecutionRunRow): ExecutionRunRecord {
  return {
    id: row.id!,
    owner: row.owner!,
    kind: row.kind!,
    tool: row.tool,
    instance_id: row.instance_id!,
    status: row.status as ExecutionRunRecord['status'],
    started_at: row.started_at!,
    snapshot: JSON.parse(row.snapshot!) as unknown,
    answer: row.answer === null ? null : (JSON.parse(row.answer) as unknown),
    cancel_requested_by: row.cancel_requested_by,
    updated_at: row.updated_at!,
    expires_at: row.expires_at!,
  };
}

export function executionRunValues(run: ExecutionRunWrite): (string | null)[] {
  return EXECUTION_RUN_COLUMNS.map((c) => {
    if (c === 'snapshot') return JSON.stringify(run.snapshot);
    if (c === 'answer') return run.answer === null ? null : JSON.stringify(run.answer);
    return run[c];
  });
}
