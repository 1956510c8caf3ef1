/**
 * @module Approvals in SQLite: one row per held call, its program once per text in
 * approval_programs; a decision changes only a pending row.
 */
import { createHash } from 'node:crypto';
import { HELD_RUN_COLUMNS, type HeldRunRow, heldRunOf, heldRunValues } from './held-run-rows.ts';
import type { SqliteDatabase } from './sqlite-database.ts';
import type { ApprovalRecord, ApprovalStore } from './types.ts';

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

/** Approvals in an open database; one gateway per SQLite file, so there is no other instance to hear. */
export function sqliteApprovalStore(db: SqliteDatabase): ApprovalStore {
  const insert = db.prepare(
    `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${APPROVAL_COLUMNS.map(() => '?').join(', ')})`,
  );
  const byId = db.prepare(`SELECT ${APPROVAL_READ} WHERE a.id = ?`);
  const putProgram = db.prepare(
    'INSERT INTO approval_programs (sha256, code) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING',
  );
  const deleteUnused = db.prepare(DELETE_UNUSED_PROGRAMS);
  const wholeById = db.prepare('SELECT args_whole FROM approvals WHERE id = ?');
  const newest = db.prepare(`SELECT ${APPROVAL_READ} ORDER BY a.id DESC LIMIT ?`);
  const newestOf = db.prepare(
    `SELECT ${APPROVAL_READ} WHERE a.status = ? ORDER BY a.id DESC LIMIT ?`,
  );
  // The status test makes the first decision the only one, whoever asks second.
  const settle = db.prepare(
    "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
  );
  const deleteOld = db.prepare(
    "DELETE FROM approvals WHERE created_at < ? AND status <> 'pending'",
  );
  const putRun = db.prepare(
    `INSERT OR REPLACE INTO held_runs (${HELD_RUN_COLUMNS.join(', ')}) VALUES (${HELD_RUN_COLUMNS.map(() => '?').join(', ')})`,
  );
  const runById = db.prepare('SELECT * FROM held_runs WHERE id = ?');
  const deleteRuns = db.prepare('DELETE FROM held_runs WHERE expires_at < ?');
  const read = (id: string) => {
    const row = byId.get(id) as ApprovalRow | undefined;
    return row ? approvalOf(row) : undefined;
  };
  return {
    async create(approval, argsWhole) {
      const sha = programDigest(approval.code);
      if (sha !== null && approval.code !== null) putProgram.run(sha, approval.code);
      insert.run(...approvalValues(approval, argsWhole));
    },
    async get(id) {
      return read(id);
    },
    async getArgs(id) {
      const row = wholeById.get(id) as { args_whole: string | null } | undefined;
      return row ? row.args_whole : undefined;
    },
    async list({ status, limit }) {
      const rows = (
        status === undefined ? newest.all(limit) : newestOf.all(status, limit)
      ) as ApprovalRow[];
      return rows.map(approvalOf);
    },
    async decide(id, status, decidedBy, decidedAt) {
      const changed = settle.run(status, decidedBy, decidedAt, id).changes > 0;
      const approval = read(id);
      if (!approval) return { outcome: 'missing' };
      return { outcome: changed ? 'decided' : 'already', approval };
    },
    async trim(before) {
      const removed = deleteOld.run(before).changes;
      if (removed > 0) deleteUnused.run();
      return removed;
    },
    onChange: () => () => {},
    async putRun(run) {
      putRun.run(...heldRunValues(run));
    },
    async getRun(id) {
      const row = runById.get(id) as HeldRunRow | undefined;
      return row ? heldRunOf(row) : undefined;
    },
    async trimRuns(now) {
      return deleteRuns.run(now).changes;
    },
    onRunChange: () => () => {},
  };
}
