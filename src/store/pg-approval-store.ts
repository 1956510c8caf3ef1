/**
 * @module Approvals in PostgreSQL: the SQLite table; a decision is one conditional UPDATE, so
 * across instances the first wins, and each create or decision is announced with its id.
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
import type { PgDatabase } from './pg-database.ts';

const INSERT = `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${APPROVAL_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
// Row-locked and conditional: a second instance's UPDATE waits for the first to commit, then
// finds the row no longer pending and changes nothing.
const SETTLE = `UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3 WHERE id = $4 AND status = 'pending' RETURNING id`;

const PUT_RUN = `INSERT INTO held_runs (${HELD_RUN_COLUMNS.join(', ')}) VALUES (${HELD_RUN_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (id) DO UPDATE SET ${HELD_RUN_COLUMNS.slice(1)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ')}`;

export function pgApprovalStore(db: PgDatabase): ApprovalStore {
  // The row is written whether or not the other instances hear of it, as in the other stores:
  // a failed notice must not turn a recorded decision into an error for its caller.
  const announce = (id: string) => db.notify('approvals', id).catch(() => {});
  const read = async (id: string) => {
    const { rows } = await db.query<ApprovalRow>(`SELECT ${APPROVAL_READ} WHERE a.id = $1`, [id]);
    return rows[0] ? approvalOf(rows[0]) : undefined;
  };
  return {
    async create(approval, argsWhole) {
      const sha = programDigest(approval.code);
      if (sha !== null) {
        await db.query(
          'INSERT INTO approval_programs (sha256, code) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING',
          [sha, approval.code],
        );
      }
      await db.query(INSERT, approvalValues(approval, argsWhole));
      await announce(approval.id);
    },
    get: read,
    async getArgs(id) {
      const { rows } = await db.query<{ args_whole: string | null }>(
        'SELECT args_whole FROM approvals WHERE id = $1',
        [id],
      );
      return rows[0] ? rows[0].args_whole : undefined;
    },
    async list({ status, limit }) {
      const { rows } =
        status === undefined
          ? await db.query<ApprovalRow>(`SELECT ${APPROVAL_READ} ORDER BY a.id DESC LIMIT $1`, [
              limit,
            ])
          : await db.query<ApprovalRow>(
              `SELECT ${APPROVAL_READ} WHERE a.status = $1 ORDER BY a.id DESC LIMIT $2`,
              [status, limit],
            );
      return rows.map(approvalOf);
    },
    async decide(id, status, decidedBy, decidedAt) {
      const { rows } = await db.query<{ id: string }>(SETTLE, [status, decidedBy, decidedAt, id]);
      // Read back with its program (a join RETURNING cannot make); a decided row no longer changes.
      const decided = rows[0] ? await read(id) : undefined;
      if (decided) {
        await announce(id);
        return { outcome: 'decided', approval: decided };
      }
      const approval = await read(id);
      return approval ? { outcome: 'already', approval } : { outcome: 'missing' };
    },
    async trim(before) {
      const result = await db.query(
        "DELETE FROM approvals WHERE created_at < $1 AND status <> 'pending'",
        [before],
      );
      if ((result.rowCount ?? 0) > 0) await db.query(DELETE_UNUSED_PROGRAMS);
      return result.rowCount ?? 0;
    },
    onChange(listener) {
      // Notices from this instance never arrive here: the database drops its own by origin.
      return db.onChange('approvals', (id) => {
        if (id) listener(id);
      });
    },
    async putRun(run) {
      await db.query(PUT_RUN, heldRunValues(run));
      await db.notify('held_runs', run.id).catch(() => {});
    },
    async getRun(id) {
      const { rows } = await db.query<HeldRunRow>('SELECT * FROM held_runs WHERE id = $1', [id]);
      return rows[0] ? heldRunOf(rows[0]) : undefined;
    },
    async trimRuns(now) {
      const result = await db.query('DELETE FROM held_runs WHERE expires_at < $1', [now]);
      return result.rowCount ?? 0;
    },
    onRunChange(listener) {
      return db.onChange('held_runs', (id) => {
        if (id) listener(id);
      });
    },
  };
}
