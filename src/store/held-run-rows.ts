/** @module A held run as a row of either database: every column TEXT, `result` as JSON text. */
import type { HeldRunRecord } from './approval-store.ts';

/** The table's columns, in HeldRunRecord's field order. */
export const HELD_RUN_COLUMNS = [
  'id',
  'caller',
  'instance_id',
  'state',
  'approval_id',
  'result',
  'updated_at',
  'expires_at',
] as const;

export type HeldRunRow = Record<(typeof HELD_RUN_COLUMNS)[number], string | null>;

export function heldRunOf(row: HeldRunRow): HeldRunRecord {
  const { result, ...rest } = row;
  return {
    ...(rest as Omit<HeldRunRecord, 'result'>),
    result: result === null ? null : (JSON.parse(result) as unknown),
  };
}

export function heldRunValues(run: HeldRunRecord): (string | null)[] {
  return HELD_RUN_COLUMNS.map((c) =>
    c === 'result' ? (run.result === null ? null : JSON.stringify(run.result)) : run[c],
  );
}
