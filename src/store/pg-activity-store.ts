/** @module Activity history in PostgreSQL: the SQLite store's table and rows, `$n` parameters. */
import type { PgDatabase } from './pg-database.ts';
import { activityFilter, COLUMNS, fromRow, type Row, toRow } from './sqlite-activity-store.ts';
import type { ActivityStore } from './types.ts';

/** The portable filter's `?` placeholders as `$1`, `$2`, ... (the filter has no other `?`). */
function numbered(sql: string, first = 1): string {
  let n = first;
  return sql.replace(/\?/g, () => `$${n++}`);
}

/** Rows of one insert statement: PostgreSQL takes at most 65535 parameters. */
const INSERT_CHUNK_ROWS = 1_000;

export function pgActivityStore(db: PgDatabase): ActivityStore {
  return {
    async insert(records) {
      if (records.length === 0) return;
      const rows = records.map(toRow);
      await db.transaction(async (client) => {
        for (let at = 0; at < rows.length; at += INSERT_CHUNK_ROWS) {
          const chunk = rows.slice(at, at + INSERT_CHUNK_ROWS);
          const params: unknown[] = [];
          const tuples = chunk.map((row) => {
            const marks = COLUMNS.map((c) => {
              params.push(row[c]);
              return `$${params.length}`;
            });
            return `(${marks.join(', ')})`;
          });
          await client.query(
            `INSERT INTO activity (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT (id) DO NOTHING`,
            params,
          );
        }
      });
    },
    async list(query) {
      const { where, params } = activityFilter(query);
      const total = await db.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM activity ${numbered(where)}`,
        params,
      );
      const n = params.length;
      const { rows } = await db.query<Row>(
        `SELECT * FROM activity ${numbered(where)} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, query.limit, query.offset],
      );
      return { items: rows.map(fromRow), total: Number(total.rows[0]?.n ?? 0) };
    },
    async get(id) {
      const { rows } = await db.query<Row>('SELECT * FROM activity WHERE id = $1', [id]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async children(parentId) {
      const { rows } = await db.query<Row>(
        'SELECT * FROM activity WHERE parent_id = $1 ORDER BY seq, id',
        [parentId],
      );
      return rows.map(fromRow);
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
