/**
 * @module Yielded runs in PostgreSQL: the SQLite table; every write and cancel request is
 * announced with the run's id, so a waiter on another instance wakes at once and the owner
 * hears a cancel without waiting for its next poll.
 */
import {
  EXECUTION_RUN_COLUMNS,
  type ExecutionRunRow,
  executionRunOf,
  executionRunValues,
} from './execution-run-rows.ts';
import type { CancelRequest, ExecutionRunStore } from './execution-run-store.ts';
import type { PgDatabase } from './pg-database.ts';

const PUT = `INSERT INTO execution_runs (${EXECUTION_RUN_COLUMNS.join(', ')}) VALUES (${EXECUTION_RUN_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (id) DO UPDATE SET ${EXECUTION_RUN_COLUMNS.slice(1)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ')}`;
// Row-locked: the first request's name is kept; a second still finds the run running.
const CANCEL = `UPDATE execution_runs SET cancel_requested_by = COALESCE(cancel_requested_by, $1)
  WHERE id = $2 AND status = 'running' AND expires_at >= $3`;

export function pgExecutionRunStore(db: PgDatabase): ExecutionRunStore {
  // The row is written whether or not the others hear of it: they poll as well.
  const announce = (id: string) => db.notify('execution_runs', id).catch(() => {});
  return {
    async put(run) {
      await db.query(PUT, executionRunValues(run));
      await announce(run.id);
    },
    async get(id) {
      const { rows } = await db.query<ExecutionRunRow>(
        'SELECT * FROM execution_runs WHERE id = $1',
        [id],
      );
      return rows[0] ? executionRunOf(rows[0]) : undefined;
    },
    async list({ now, owner, limit }) {
      const { rows } =
        owner === undefined
          ? await db.query<ExecutionRunRow>(
              'SELECT * FROM execution_runs WHERE expires_at >= $1 ORDER BY id DESC LIMIT $2',
              [now, limit],
            )
          : await db.query<ExecutionRunRow>(
              'SELECT * FROM execution_runs WHERE owner = $1 AND expires_at >= $2 ORDER BY id DESC LIMIT $3',
              [owner, now, limit],
            );
      return rows.map(executionRunOf);
    },
    async requestCancel(id, by, now) {
      const result = await db.query(CANCEL, [by, id, now]);
      const found = (result.rowCount ?? 0) > 0;
      if (found) await announce(id);
      return found;
    },
    async cancelRequests(instanceId) {
      const { rows } = await db.query<CancelRequest>(
        `SELECT id, cancel_requested_by AS by FROM execution_runs
         WHERE instance_id = $1 AND status = 'running' AND cancel_requested_by IS NOT NULL`,
        [instanceId],
      );
      return rows;
    },
    async trim(now) {
      const result = await db.query('DELETE FROM execution_runs WHERE expires_at < $1', [now]);
      return result.rowCount ?? 0;
    },
    onChange(listener) {
      // Notices from this instance never arrive here: the database drops its own by origin.
      return db.onChange('execution_runs', (id) => {
        if (id) listener(id);
      });
    },
  };
}
