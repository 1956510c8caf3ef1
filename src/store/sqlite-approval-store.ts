/**
 * @module Approvals in SQLite: one row per held call, its program once per text in
 * approval_programs; a decision changes only a pending row.
 */
import {
  APPROVAL_COLUMNS,
  APPROVAL_READ,
  type ApprovalRow,
  approvalOf,
  approvalValues,
  DELETE_UNUSED_PROGRAMS,
  programDigest,
} from './approval-rows.ts';
import type { ApprovalStore } from './approval-store.ts';
import { HELD_RUN_COLUMNS, type HeldRunRow, heldRunOf, heldRunValues } from './held-run-rows.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

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
