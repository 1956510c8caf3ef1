/** @module Activity history in SQLite: one table, batched inserts in one transaction. */
import type { SqliteDatabase } from './sqlite-database.ts';
import type { ActivityQuery, ActivityRecord, ActivityStore } from './types.ts';

export const COLUMNS = [
  'id',
  'parent_id',
  'seq',
  'kind',
  'surface',
  'caller',
  'server',
  'tool',
  'script',
  'language',
  'code',
  'input',
  'args',
  'status',
  'error',
  'started_at',
  'duration_ms',
  'logs',
  'response',
  'instance_id',
  'approval_id',
  'dry_run',
] as const;

export type Row = Record<(typeof COLUMNS)[number], string | number | null>;

/** JSON columns hold JSON text; absent values are NULL. */
const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
const parse = (text: string | number | null) =>
  text === null ? null : (JSON.parse(String(text)) as unknown);

export function toRow(r: ActivityRecord & { seq: number }): Row {
  return {
    ...r,
    input: json(r.input),
    args: json(r.args),
    error: json(r.error),
    logs: json(r.logs),
    response: json(r.response),
    // Optional in the record (builders from before approvals leave it out); a column always.
    approval_id: r.approval_id ?? null,
    dry_run: r.dry_run ? 1 : 0,
  } as Row;
}

export function fromRow(row: Row): ActivityRecord {
  return {
    id: String(row.id),
    parent_id: row.parent_id === null ? null : String(row.parent_id),
    kind: row.kind as ActivityRecord['kind'],
    surface: row.surface as ActivityRecord['surface'],
    caller: String(row.caller),
    server: row.server === null ? null : String(row.server),
    tool: row.tool === null ? null : String(row.tool),
    script: row.script === null ? null : String(row.script),
    language: row.language === null ? null : String(row.language),
    code: row.code === null ? null : String(row.code),
    input: parse(row.input),
    args: parse(row.args),
    status: row.status as ActivityRecord['status'],
    error: parse(row.error) as ActivityRecord['error'],
    started_at: String(row.started_at),
    duration_ms: Number(row.duration_ms),
    logs: (parse(row.logs) as string[] | null) ?? [],
    response: parse(row.response),
    instance_id: String(row.instance_id),
    approval_id: row.approval_id === null ? null : String(row.approval_id),
    ...(Number(row.dry_run) === 1 ? { dry_run: true as const } : {}),
  };
}

/** The instants a stored `started_at` can hold (toISOString's 24-character form). */
const FIRST_STORED_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_STORED_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `started_at >= since` as time: within the years a record's time can have, the since instant
 * in the records' own fixed-width form (text order is time order there, and the index serves
 * it); after them, no record; before them, every one.
 */
function sinceClause(sinceMs: number): { clause?: string; param?: string } {
  if (sinceMs > LAST_STORED_MS) return { clause: '1 = 0' };
  if (sinceMs <= FIRST_STORED_MS) return {};
  return { clause: 'started_at >= ?', param: new Date(sinceMs).toISOString() };
}

/** `started_at < until` as time, in the same terms as sinceClause. */
function untilClause(untilMs: number): { clause?: string; param?: string } {
  if (untilMs <= FIRST_STORED_MS) return { clause: '1 = 0' };
  if (untilMs > LAST_STORED_MS) return {};
  return { clause: 'started_at < ?', param: new Date(untilMs).toISOString() };
}

/** The text columns a search looks in. */
const SEARCHED = ['code', 'input', 'args'];

/** `text` as a LIKE pattern that matches it anywhere, its own `%`, `_` and `\` taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** WHERE clause and parameters of a query's filters (portable SQL, positional `?`). */
export function activityFilter(query: ActivityQuery): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const key of [
    'kind',
    'status',
    'server',
    'parent_id',
    'caller',
    'surface',
    'tool',
  ] as const) {
    const value = query[key];
    if (value !== undefined) {
      clauses.push(`${key} = ?`);
      params.push(value);
    }
  }
  for (const [at, bound] of [
    [query.sinceMs, sinceClause],
    [query.untilMs, untilClause],
  ] as const) {
    if (at === undefined) continue;
    const { clause, param } = bound(at);
    if (clause) clauses.push(clause);
    if (param !== undefined) params.push(param);
  }
  if (query.search) {
    const pattern = containing(query.search);
    clauses.push(
      `(${SEARCHED.map((c) => `LOWER(COALESCE(${c}, '')) LIKE ? ESCAPE '\\'`).join(' OR ')})`,
    );
    params.push(...SEARCHED.map(() => pattern));
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export function sqliteActivityStore(db: SqliteDatabase): ActivityStore {
  const insertRow = db.prepare(
    `INSERT OR IGNORE INTO activity (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const insertAll = db.transaction((rows: Row[]) => {
    for (const row of rows) insertRow.run(row);
  });
  const byId = db.prepare('SELECT * FROM activity WHERE id = ?');
  const byParent = db.prepare('SELECT * FROM activity WHERE parent_id = ? ORDER BY seq, id');
  const deleteOld = db.prepare('DELETE FROM activity WHERE started_at < ?');
  const count = db.prepare('SELECT COUNT(*) AS n FROM activity');
  const deleteOldest = db.prepare(
    'DELETE FROM activity WHERE id IN (SELECT id FROM activity ORDER BY id LIMIT ?)',
  );

  // The connection's own durability (FULL unless configured otherwise), for every other write.
  const durable = db.pragma('synchronous', { simple: true }) as number;
  return {
    /**
     * A batch commits with synchronous=NORMAL: under WAL that skips its fsync (3-25 ms on the
     * main thread here, against 0.5 ms), safe from corruption, and an application crash loses
     * nothing committed; a power cut may take back the last batches. Tokens and code tools
     * keep the connection's setting.
     */
    async insert(records) {
      db.pragma('synchronous = NORMAL');
      try {
        insertAll(records.map(toRow));
      } finally {
        db.pragma(`synchronous = ${durable}`);
      }
    },
    async list(query) {
      const { where, params } = activityFilter(query);
      const total = (
        db.prepare(`SELECT COUNT(*) AS n FROM activity ${where}`).get(...params) as { n: number }
      ).n;
      const rows = db
        .prepare(`SELECT * FROM activity ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
        .all(...params, query.limit, query.offset) as Row[];
      return { items: rows.map(fromRow), total };
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? fromRow(row) : undefined;
    },
    async children(parentId) {
      return (byParent.all(parentId) as Row[]).map(fromRow);
    },
    async trim(before, maxRecords) {
      let removed = deleteOld.run(before).changes;
      const { n } = count.get() as { n: number };
      if (n > maxRecords) removed += deleteOldest.run(n - maxRecords).changes;
      return removed;
    },
    async close() {},
  };
}
