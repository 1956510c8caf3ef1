/**
 * @module Yielded runs in SQLite: one row per run; the owner's writes keep a cancel request
 * another process (a `codemux stdio` beside `serve`) made.
 */
import {
  EXECUTION_RUN_COLUMNS,
  type ExecutionRunRow,
  executionRunOf,
  executionRunValues,
} from './execution-run-rows.ts';
import type { CancelRequest, ExecutionRunStore } from './execution-run-store.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

/** Runs in an open database; no notices between processes, so readers poll. */
export function sqliteExecutionRunStore(db: SqliteDatabase): ExecutionRunStore {
  const put = db.prepare(
    `INSERT INTO execution_runs (${EXECUTION_RUN_COLUMNS.join(', ')}) VALUES (${EXECUTION_RUN_COLUMNS.map(() => '?').join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${EXECUTION_RUN_COLUMNS.slice(1)
       .map((c) => `${c} = excluded.${c}`)
       .join(', ')}`,
  );
  const byId = db.prepare('SELECT * FROM execution_runs WHERE id = ?');
  const all = db.prepare(
    'SELECT * FROM execution_runs WHERE expires_at >= ? ORDER BY id DESC LIMIT ?',
  );
  const ofOwner = db.prepare(
    'SELECT * FROM execution_runs WHERE owner = ? AND expires_at >= ? ORDER BY id DESC LIMIT ?',
  );
  // The first request's name is kept; a second still finds the run running.
  const cancel = db.prepare(
    `UPDATE execution_runs SET cancel_requested_by = COALESCE(cancel_requested_by, ?)
     WHERE id = ? AND status = 'running' AND expires_at >= ?`,
  );
  const cancels = db.prepare(
    `SELECT id, cancel_requested_by AS by FROM execution_runs
     WHERE instance_id = ? AND status = 'running' AND cancel_requested_by IS NOT NULL`,
  );
  const trim = db.prepare('DELETE FROM execution_runs WHERE expires_at < ?');
  return {
    async put(run) {
      put.run(...executionRunValues(run));
    },
    async get(id) {
      const row = byId.get(id) as ExecutionRunRow | undefined;
      return row ? executionRunOf(row) : undefined;
    },
    async list({ now, owner, limit }) {
      const rows = (
        owner === undefined ? all.all(now, limit) : ofOwner.all(owner, now, limit)
      ) as ExecutionRunRow[];
      return rows.map(executionRunOf);
    },
    async requestCancel(id, by, now) {
      return cancel.run(by, id, now).changes > 0;
    },
    async cancelRequests(instanceId) {
      return cancels.all(instanceId) as CancelRequest[];
    },
    async trim(now) {
      return trim.run(now).changes;
    },
    onChange: () => () => {},
  };
}
