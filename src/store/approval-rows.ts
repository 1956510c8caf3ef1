/**
 * @module The approval tables' rows, shared by the SQLite and PostgreSQL approval stores: every
 * column TEXT, JSON as text, the program kept once in approval_programs by its digest.
 */
import { createHash } from 'node:crypto';
import type { ApprovalRecord } from './approval-store.ts';

/** The table's columns, in ApprovalRecord's field order. */
export const APPROVAL_COLUMNS = [
  'id',
  'status',
  'server',
  'tool',
  'args',
  'args_sha256',
  'reason',
  'caller',
  'activity_id',
  'code',
  'created_at',
  'expires_at',
  'decided_by',
  'decided_at',
  'instance_id',
  'args_cut_keys',
  'args_whole',
  'code_sha256',
] as const;

export type ApprovalRow = Record<(typeof APPROVAL_COLUMNS)[number], string | null>;

/**
 * `SELECT <this> WHERE ...` reads records: every column but the whole arguments (read only by
 * getArgs), the program from approval_programs (or the row's own `code`, for rows older than it).
 */
export const APPROVAL_READ = `${APPROVAL_COLUMNS.filter(
  (c) => c !== 'args_whole' && c !== 'code_sha256',
)
  .map((c) => (c === 'code' ? 'COALESCE(p.code, a.code) AS code' : `a.${c}`))
  .join(', ')} FROM approvals a LEFT JOIN approval_programs p ON p.sha256 = a.code_sha256`;

/** The program's digest, the key of its one approval_programs row (null without a program). */
export const programDigest = (code: string | null): string | null =>
  code === null ? null : createHash('sha256').update(code).digest('hex');

/** Forgets programs no approval names any more (after a trim). */
export const DELETE_UNUSED_PROGRAMS =
  'DELETE FROM approval_programs WHERE sha256 NOT IN (SELECT code_sha256 FROM approvals WHERE code_sha256 IS NOT NULL)';

/** A row as read back (every column is TEXT: `args` and `args_cut_keys` are JSON). */
export function approvalOf(row: Omit<ApprovalRow, 'args_whole' | 'code_sha256'>): ApprovalRecord {
  const { args, args_cut_keys, ...rest } = row;
  const cut = args_cut_keys === null ? [] : (JSON.parse(args_cut_keys) as string[]);
  return {
    ...(rest as Omit<ApprovalRecord, 'args' | 'args_truncated' | 'args_cut_keys'>),
    args: args === null ? null : (JSON.parse(args) as unknown),
    args_truncated: args_cut_keys !== null,
    args_cut_keys: cut,
  };
}

/** A record's values in APPROVAL_COLUMNS order; `args` as JSON text (NULL when absent). */
export function approvalValues(
  a: ApprovalRecord,
  argsWhole: string | null = null,
): (string | null)[] {
  return APPROVAL_COLUMNS.map((c) => {
    if (c === 'args') return JSON.stringify(a.args) ?? null;
    if (c === 'args_cut_keys') return a.args_truncated ? JSON.stringify(a.args_cut_keys) : null;
    if (c === 'args_whole') return a.args_truncated ? argsWhole : null;
    // The program lives once in approval_programs, named by its digest.
    if (c === 'code') return null;
    if (c === 'code_sha256') return programDigest(a.code);
    return a[c] ?? null;
  });
}
