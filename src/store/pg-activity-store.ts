/** @module Activity history in PostgreSQL: the SQLite store's table and rows, `$n` parameters. */

import { activityFilter } from './activity-filter.ts';
import {
  FAILING_SQL,
  HOURS_SQL,
  LATENCY_SQL,
  overviewOf,
  windowParams,
} from './activity-overview-sql.ts';
import { ACTIVITY_COLUMNS, type ActivityRow, activityOf, activityRow } from './activity-rows.ts';
import type { ActivityRecord, ActivityStore } from './activity-store.ts';
import { NOTICE_DATA_MAX_BYTES, type PgDatabase } from './pg-database.ts';

/** The portable filter's `?` placeholders as `$1`, `$2`, ... (the filter has no other `?`). */
function numbered(sql: string, first = 1): string {
  let n = first;
  return sql.replace(/\?/g, () => `$${n++}`);
}

/** Rows of one insert statement: PostgreSQL takes at most 65535 parameters. */
const INSERT_CHUNK_ROWS = 1_000;

/** The ids of a batch as notices' data: comma-separated, each notice within the payload limit. */
function idNotices(ids: readonly string[]): string[] {
  const notices: string[] = [];
  let current = '';
  for (const id of ids) {
    if (current && current.length + 1 + id.length > NOTICE_DATA_MAX_BYTES) {
      notices.push(current);
      current = '';
    }
    current = current ? `${current},${id}` : id;
  }
  if (current) notices.push(current);
  return notices;
}

export function pgActivityStore(db: PgDatabase): ActivityStore {
  const remote = new Set<(records: ActivityRecord[]) => void>();
  let stopNotices: (() => void) | undefined;
  /** Reads of announced ids, one after the other, so the feeds get them in the order written. */
  let reads = Promise.resolve();
  const readBack = async (ids: string[]) => {
    const { rows } = await db.query<ActivityRow>(
      'SELECT * FROM activity WHERE id = ANY($1) ORDER BY id',
      [ids],
    );
    const records = rows.map(activityOf);
    for (const listener of remote) listener(records);
  };
  // Another instance wrote these ids: read them back for the live feeds.
  const onNotice = (data?: string) => {
    const ids = data?.split(',').filter(Boolean) ?? [];
    if (ids.length === 0 || remote.size === 0) return;
    // A read that fails (or a row that does not decode) costs the live view these records;
    // the history has them.
    reads = reads.then(() => readBack(ids)).catch(() => {});
  };
  return {
    async insert(records) {
      if (records.length === 0) return;
      const rows = records.map(activityRow);
      await db.transaction(async (client) => {
        for (let at = 0; at < rows.length; at += INSERT_CHUNK_ROWS) {
          const chunk = rows.slice(at, at + INSERT_CHUNK_ROWS);
          const params: unknown[] = [];
          const tuples = chunk.map((row) => {
            const marks = ACTIVITY_COLUMNS.map((c) => {
              params.push(row[c]);
              return `$${params.length}`;
            });
            return `(${marks.join(', ')})`;
          });
          await client.query(
            `INSERT INTO activity (${ACTIVITY_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT (id) DO NOTHING`,
            params,
          );
        }
      });
      // The other instances' live feeds; the records are written whether or not this is heard.
      for (const data of idNotices(records.map((r) => r.id)))
        await db.notify('activity', data).catch(() => {});
    },
    onRemoteInsert(listener) {
      remote.add(listener);
      stopNotices ??= db.onChange('activity', onNotice);
      return () => {
        remote.delete(listener);
        if (remote.size > 0) return;
        stopNotices?.();
        stopNotices = undefined;
      };
    },
    async list(query) {
      const { where, params } = activityFilter(query);
      const total = await db.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM activity ${numbered(where)}`,
        params,
      );
      const n = params.length;
      const { rows } = await db.query<ActivityRow>(
        `SELECT * FROM activity ${numbered(where)} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, query.limit, query.offset],
      );
      return { items: rows.map(activityOf), total: Number(total.rows[0]?.n ?? 0) };
    },
    async get(id) {
      const { rows } = await db.query<ActivityRow>('SELECT * FROM activity WHERE id = $1', [id]);
      return rows[0] ? activityOf(rows[0]) : undefined;
    },
    async children(parentId) {
      const { rows } = await db.query<ActivityRow>(
        'SELECT * FROM activity WHERE parent_id = $1 ORDER BY seq, id',
        [parentId],
      );
      return rows.map(activityOf);
    },
    async overview(window) {
      const range = windowParams(window);
      type Row = Record<string, string | number | null>;
      const [hours, latency, failing] = await Promise.all([
        db.query<Row>(numbered(HOURS_SQL), range),
        db.query<Row>(numbered(LATENCY_SQL), range),
        db.query<Row>(numbered(FAILING_SQL), [...range, window.failingLimit]),
      ]);
      return overviewOf(hours.rows, latency.rows, failing.rows);
    },
    async trim(before, maxRecords) {
      return db.transaction(async (client) => {
        let removed = (await client.query('DELETE FROM activity WHERE started_at < $1', [before]))
          .rowCount!;
        const count = await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM activity');
        const n = Number(count.rows[0]?.n ?? 0);
        if (n > maxRecords) {
          removed += (
            await client.query(
              'DELETE FROM activity WHERE id IN (SELECT id FROM activity ORDER BY id LIMIT $1)',
              [n - maxRecords],
            )
          ).rowCount!;
        }
        return removed;
      });
    },
    async close() {},
  };
}
