/**
 * @module Run journals in PostgreSQL: the SQLite tables. An append is one INSERT statement (all
 * rows or none; a single entry through a named prepared statement) and reads nothing; a claim is
 * one UPDATE whose candidates are locked with SKIP LOCKED and re-checked, so of two instances
 * claiming at once only one takes each run.
 */
import { type JournalLimits, JournalTally } from './journal-tally.ts';
import type { PgDatabase } from './pg-database.ts';
import {
  JOURNAL_RUN_COLUMNS,
  type JournalEntryRow,
  type JournalRunRow,
  journalConflict,
  journalEntryOf,
  journalEntryRows,
  journalNotFound,
  journalRunOf,
  journalRunValues,
  journalSeqConflict,
  oldestFirst,
} from './run-journal-rows.ts';
import type { RunJournalStore } from './run-journal-store.ts';

const isUniqueViolation = (e: unknown) => (e as { code?: unknown }).code === '23505';

const BEGIN = `INSERT INTO run_journals (${JOURNAL_RUN_COLUMNS.join(', ')})
  VALUES (${JOURNAL_RUN_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
const APPEND_ONE =
  'INSERT INTO run_journal_entries (run_id, seq, kind, data) VALUES ($1, $2, $3, $4)';
const SIZE = `SELECT EXISTS (SELECT 1 FROM run_journals WHERE id = $1) AS found, COUNT(*)::float8 AS entries,
  COALESCE(SUM(octet_length(kind) + octet_length(data)), 0)::float8 AS bytes
  FROM run_journal_entries WHERE run_id = $1`;
// The candidates are picked once (a CTE: a LIMIT inside `IN (...)` may be run again per row)
// and locked, skipping rows another claimer holds; the update re-checks the condition on the
// locked row, so a lease renewed or a run claimed meanwhile no longer matches.
const claimSql = (which: string) => `WITH picked AS MATERIALIZED (
    SELECT id FROM run_journals WHERE ${which} ORDER BY created_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
  )
  UPDATE run_journals SET instance_id = $1, lease_until = $2, resumed = resumed + 1
  FROM picked WHERE run_journals.id = picked.id AND ${which}
  RETURNING run_journals.*`;
const CLAIM_MINE = claimSql('run_journals.instance_id = $3');
const CLAIM_LAPSED = claimSql('run_journals.lease_until < $3');

/** The multi-row INSERT of `rows` for run `$1`. */
function appendMany(id: string, rows: readonly JournalEntryRow[]): [string, unknown[]] {
  const values: unknown[] = [id];
  const tuples = rows.map((row) => {
    values.push(row.seq, row.kind, row.data);
    const n = values.length;
    return `($1, $${n - 2}, $${n - 1}, $${n})`;
  });
  return [
    `INSERT INTO run_journal_entries (run_id, seq, kind, data) VALUES ${tuples.join(', ')}`,
    values,
  ];
}

export function pgRunJournalStore(db: PgDatabase, limits?: JournalLimits): RunJournalStore {
  const tally = new JournalTally(limits);
  const sizeOf = async (id: string) => {
    const { rows } = await db.query<{ found: boolean; entries: number; bytes: number }>(SIZE, [id]);
    return rows[0]!;
  };
  return {
    async begin(run) {
      try {
        await db.query(BEGIN, journalRunValues(run));
      } catch (e) {
        throw isUniqueViolation(e) ? journalConflict(run.id, 'a header') : e;
      }
      tally.know(run.id, { entries: 0, bytes: 0 });
    },
    async append(id, list) {
      if (list.length === 0) return;
      if (!tally.knows(id)) {
        const { found, entries, bytes } = await sizeOf(id);
        if (!found) throw journalNotFound(id);
        if (!tally.knows(id)) tally.know(id, { entries, bytes });
      }
      const rows = journalEntryRows(list);
      const undo = tally.take(id, rows);
      try {
        if (rows.length === 1) {
          const row = rows[0]!;
          await db.pool.query({
            name: 'run_journal_append_one',
            text: APPEND_ONE,
            values: [id, row.seq, row.kind, row.data],
          });
        } else {
          await db.query(...appendMany(id, rows));
        }
      } catch (e) {
        undo();
        throw isUniqueViolation(e) ? journalSeqConflict(id, rows) : e;
      }
    },
    async entries(id) {
      const { rows } = await db.query<{ seq: number; kind: string; data: string }>(
        'SELECT seq, kind, data FROM run_journal_entries WHERE run_id = $1 ORDER BY seq',
        [id],
      );
      return rows.map(journalEntryOf);
    },
    async get(id) {
      const { rows } = await db.query<JournalRunRow>('SELECT * FROM run_journals WHERE id = $1', [
        id,
      ]);
      return rows[0] ? journalRunOf(rows[0]) : undefined;
    },
    async claim(instanceId, leaseUntil, { mine, now, limit }) {
      const { rows } = await db.query<JournalRunRow>(mine ? CLAIM_MINE : CLAIM_LAPSED, [
        instanceId,
        leaseUntil,
        mine ? instanceId : now,
        limit,
      ]);
      for (const row of rows) tally.forget(row.id as string);
      return rows.map(journalRunOf).sort(oldestFirst);
    },
    async renew(ids, instanceId, leaseUntil) {
      if (ids.length === 0) return;
      await db.query(
        'UPDATE run_journals SET lease_until = $1 WHERE instance_id = $2 AND id = ANY($3::text[])',
        [leaseUntil, instanceId, ids],
      );
    },
    async finish(id) {
      tally.forget(id);
      // One statement: the entries and the header go together.
      await db.query(
        `WITH gone AS (DELETE FROM run_journal_entries WHERE run_id = $1)
         DELETE FROM run_journals WHERE id = $1`,
        [id],
      );
    },
    async size(id) {
      const { entries, bytes } = await sizeOf(id);
      return { entries, bytes };
    },
  };
}
