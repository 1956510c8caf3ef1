/** @module Activity history in SQLite: one table, batched inserts in one transaction. */
import { activityFilter } from './activity-filter.ts';
import {
  FAILING_SQL,
  HOURS_SQL,
  LATENCY_SQL,
  overviewOf,
  windowParams,
} from './activity-overview-sql.ts';
import { ACTIVITY_COLUMNS, type ActivityRow, activityOf, activityRow } from './activity-rows.ts';
import type { ActivityStore } from './activity-store.ts';
import { ActivityWriter } from './activity-writer.ts';
import type { SqliteDatabase } from './sqlite-database.ts';
import { relaxedCommits } from './sqlite-relaxed.ts';

/**
 * The history in `db`. With `file` (the database's path), inserts are committed by a writer
 * thread on a connection of its own (activity-writer.ts); without it, on this thread.
 */
export function sqliteActivityStore(db: SqliteDatabase, file?: string): ActivityStore {
  const writer = file === undefined ? undefined : new ActivityWriter(file);
  const insertRow = db.prepare(
    `INSERT OR IGNORE INTO activity (${ACTIVITY_COLUMNS.join(', ')}) VALUES (${ACTIVITY_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const insertAll = db.transaction((rows: ActivityRow[]) => {
    for (const row of rows) insertRow.run(row);
  });
  const byId = db.prepare('SELECT * FROM activity WHERE id = ?');
  const byParent = db.prepare('SELECT * FROM activity WHERE parent_id = ? ORDER BY seq, id');
  const deleteOld = db.prepare('DELETE FROM activity WHERE started_at < ?');
  const count = db.prepare('SELECT COUNT(*) AS n FROM activity');
  const deleteOldest = db.prepare(
    'DELETE FROM activity WHERE id IN (SELECT id FROM activity ORDER BY id LIMIT ?)',
  );

  const hours = db.prepare(HOURS_SQL);
  const latency = db.prepare(LATENCY_SQL);
  const failing = db.prepare(FAILING_SQL);
  const relaxed = relaxedCommits(db);
  return {
    /**
     * A batch commits with synchronous=NORMAL: under WAL that skips its fsync (3-25 ms on the
     * main thread here, against 0.5 ms), safe from corruption, and an application crash loses
     * nothing committed; a power cut may take back the last batches. Tokens and code tools
     * keep the connection's setting.
     */
    async insert(records) {
      if (writer) return writer.insert(records);
      relaxed(() => insertAll(records.map(activityRow)));
    },
    async list(query) {
      const { where, params } = activityFilter(query);
      const total = (
        db.prepare(`SELECT COUNT(*) AS n FROM activity ${where}`).get(...params) as { n: number }
      ).n;
      const rows = db
        .prepare(`SELECT * FROM activity ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
        .all(...params, query.limit, query.offset) as ActivityRow[];
      return { items: rows.map(activityOf), total };
    },
    async get(id) {
      const row = byId.get(id) as ActivityRow | undefined;
      return row ? activityOf(row) : undefined;
    },
    async children(parentId) {
      return (byParent.all(parentId) as ActivityRow[]).map(activityOf);
    },
    async overview(window) {
      const range = windowParams(window);
      type Rows = Array<Record<string, string | number | null>>;
      return overviewOf(
        hours.all(...range) as Rows,
        latency.all(...range) as Rows,
        failing.all(...range, window.failingLimit) as Rows,
      );
    },
    async trim(before, maxRecords) {
      let removed = deleteOld.run(before).changes;
      const { n } = count.get() as { n: number };
      if (n > maxRecords) removed += deleteOldest.run(n - maxRecords).changes;
      return removed;
    },
    async close() {
      await writer?.close();
    },
  };
}
