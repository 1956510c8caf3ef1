/** @module The activity table's rows, shared by the SQLite and PostgreSQL activity stores: JSON columns as text. */
import type { ActivityRecord } from './activity-store.ts';

/** The table's columns; `seq` orders a parent's children. */
export const ACTIVITY_COLUMNS = [
  'id',
  'parent_id',
  'seq',
  'kind',
  'surface',
  'caller',
  'server',
  'tool',
  'script',
  'language',
  'code',
  'input',
  'args',
  'status',
  'error',
  'started_at',
  'duration_ms',
  'logs',
  'response',
  'instance_id',
  'approval_id',
  'dry_run',
  'resumed',
  'offset_ms',
] as const;

export type ActivityRow = Record<(typeof ACTIVITY_COLUMNS)[number], string | number | null>;

/** JSON columns hold JSON text; absent values are NULL. */
const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
const parse = (text: string | number | null) =>
  text === null ? null : (JSON.parse(String(text)) as unknown);

export function activityRow(r: ActivityRecord & { seq: number }): ActivityRow {
  return {
    ...r,
    input: json(r.input),
    args: json(r.args),
    error: json(r.error),
    logs: json(r.logs),
    response: json(r.response),
    // Optional in the record (builders from before approvals leave it out); a column always.
    approval_id: r.approval_id ?? null,
    dry_run: r.dry_run ? 1 : 0,
    resumed: r.resumed ?? 0,
    offset_ms: r.offset_ms ?? null,
  } as ActivityRow;
}

export function activityOf(row: ActivityRow): ActivityRecord {
  return {
    id: String(row.id),
    parent_id: row.parent_id === null ? null : String(row.parent_id),
    kind: row.kind as ActivityRecord['kind'],
    surface: row.surface as ActivityRecord['surface'],
    caller: String(row.caller),
    server: row.server === null ? null : String(row.server),
    tool: row.tool === null ? null : String(row.tool),
    script: row.script === null ? null : String(row.script),
    language: row.language === null ? null : String(row.language),
    code: row.code === null ? null : String(row.code),
    input: parse(row.input),
    args: parse(row.args),
    status: row.status as ActivityRecord['status'],
    error: parse(row.error) as ActivityRecord['error'],
    started_at: String(row.started_at),
    duration_ms: Number(row.duration_ms),
    logs: (parse(row.logs) as string[] | null) ?? [],
    response: parse(row.response),
    instance_id: String(row.instance_id),
    approval_id: row.approval_id === null ? null : String(row.approval_id),
    ...(Number(row.dry_run) === 1 ? { dry_run: true as const } : {}),
    ...(Number(row.resumed) > 0 ? { resumed: Number(row.resumed) } : {}),
    ...(row.offset_ms === null || row.offset_ms === undefined
      ? {}
      : { offset_ms: Number(row.offset_ms) }),
  };
}
