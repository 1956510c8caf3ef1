/**
 * @module Approvals in PostgreSQL: the SQLite table; a decision is one conditional UPDATE, so
 * across instances the first wins, and each create or decision is announced with its id.
 */
import type { PgDatabase } from './pg-database.ts';
import {
  APPROVAL_COLUMNS,
  type ApprovalRow,
  approvalOf,
  approvalValues,
} from './sqlite-approval-store.ts';
import type { ApprovalStore } from './types.ts';

const INSERT = `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${APPROVAL_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
// Row-locked and conditional: a second instance's UPDATE waits for the first to commit, then
// finds the row no longer pending and changes nothing.
const SETTLE =
  "UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3 WHERE id = $4 AND status = 'pending' RETURNING *";

export function pgApprovalStore(db: PgDatabase): ApprovalStore {
  // The row is written whether or not the other instances hear of it, as in the other stores:
  // a failed notice must not turn a recorded decision into an error for its caller.
  const announce = (id: string) => db.notify('approvals', id).catch(() => {});
  const read = async (id: string) => {
    const { rows } = await db.query<ApprovalRow>('SELECT * FROM approvals WHERE id = $1', [id]);
    return rows[0] ? approvalOf(rows[0]) : undefined;
  };
  return {
    async create(approval) {
      await db.query(INSERT, approvalValues(approval));
      await announce(approval.id);
    },
    get: read,
    async list({ status, limit }) {
      const { rows } =
        status === undefined
          ? await db.query<ApprovalRow>('SELECT * FROM approvals ORDER BY id DESC LIMIT $1', [
              limit,
            ])
          : await db.query<ApprovalRow>(
              'SELECT * FROM approvals WHERE status = $1 ORDER BY id DESC LIMIT $2',
              [status, limit],
            );
      return rows.map(approvalOf);
    },
    async decide(id, status, decidedBy, decidedAt) {
      const { rows } = await db.query<ApprovalRow>(SETTLE, [status, decidedBy, decidedAt, id]);
      if (rows[0]) {
        await announce(id);
        return { outcome: 'decided', approval: approvalOf(rows[0]) };
      }
      const approval = await read(id);
      return approval ? { outcome: 'already', approval } : { outcome: 'missing' };
    },
    async trim(before) {
      const result = await db.query(
        "DELETE FROM approvals WHERE created_at < $1 AND status <> 'pending'",
        [before],
      );
      return result.rowCount ?? 0;
    },
    onChange(listener) {
      // Notices from this instance never arrive here: the database drops its own by origin.
      return db.onChange('approvals', (id) => {
        if (id) listener(id);
      });
    },
  };
}
