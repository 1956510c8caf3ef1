/**
 * @module Run journals in SQLite: a header row per run and an entry row per interaction, written
 * with prepared statements (an append is one insert per entry, in one transaction when several,
 * and reads nothing); claims run in an immediate transaction, so two processes on one file never
 * both take a run.
 */
import { type JournalLimits, JournalTally } from './journal-tally.ts';
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
} from './run-journal-rows.ts';
import type { JournalSize, RunJournalStore } from './run-journal-store.ts';
import type { SqliteDatabase } from './sqlite-database.ts';
import { relaxedCommits } from './sqlite-relaxed.ts';

const isConstraint = (e: unknown) =>
  (e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';

/** Journals in an open database. */
export function sqliteRunJournalStore(db: SqliteDatabase, limits?: JournalLimits): RunJournalStore {
  const tally = new JournalTally(limits);
  const relaxed = relaxedCommits(db);
  const begin = db.prepare(
    `INSERT INTO run_journals (${JOURNAL_RUN_COLUMNS.join(', ')}) VALUES (${JOURNAL_RUN_COLUMNS.map(() => '?').join(', ')})`,
  );
  const insert = db.prepare(
    'INSERT INTO run_journal_entries (run_id, seq, kind, data) VALUES (?, ?, ?, ?)',
  );
  const insertAll = db.transaction((id: string, rows: JournalEntryRow[]) => {
    for (const row of rows) insert.run(id, row.seq, row.kind, row.data);
  });
  const entries = db.prepare(
    'SELECT seq, kind, data FROM run_journal_entries WHERE run_id = ? ORDER BY seq',
  );
  const byId = db.prepare('SELECT * FROM run_journals WHERE id = ?');
  const size = db.prepare(
    `SELECT COUNT(*) AS entries,
       COALESCE(SUM(length(CAST(kind AS BLOB)) + length(CAST(data AS BLOB))), 0) AS bytes
     FROM run_journal_entries WHERE run_id = ?`,
  );
  const lapsed = db.prepare(
    'SELECT * FROM run_journals WHERE lease_until < ? ORDER BY created_at, id LIMIT ?',
  );
  const owned = db.prepare(
    'SELECT * FROM run_journals WHERE instance_id = ? ORDER BY created_at, id LIMIT ?',
  );
  // Conditional on the row as it was read: a run another claimer took meanwhile is left.
  const take = db.prepare(
    `UPDATE run_journals SET instance_id = ?, lease_until = ?, resumed = resumed + 1
     WHERE id = ? AND instance_id = ? AND lease_until = ?`,
  );
  const claim = db.transaction(
    (instanceId: string, leaseUntil: string, mine: boolean, now: string, limit: number) => {
      const rows = (
        mine ? owned.all(instanceId, limit) : lapsed.all(now, limit)
      ) as JournalRunRow[];
      const taken: JournalRunRow[] = [];
      for (const row of rows) {
        const changes = take.run(
          instanceId,
          leaseUntil,
          row.id,
          row.instance_id,
          row.lease_until,
        ).changes;
        if (changes === 0) continue;
        taken.push({
          ...row,
          instance_id: instanceId,
          lease_until: leaseUntil,
          resumed: Number(row.resumed) + 1,
        });
      }
      return taken;
    },
  );
  const renew = db.prepare(
    `UPDATE run_journals SET lease_until = ?
     WHERE instance_id = ? AND id IN (SELECT value FROM json_each(?))`,
  );
  const dropEntries = db.prepare('DELETE FROM run_journal_entries WHERE run_id = ?');
  const dropRun = db.prepare('DELETE FROM run_journals WHERE id = ?');
  const finish = db.transaction((id: string) => {
    dropEntries.run(id);
    dropRun.run(id);
  });

  return {
    async begin(run) {
      try {
        begin.run(...journalRunValues(run));
      } catch (e) {
        throw isConstraint(e) ? journalConflict(run.id, 'a header') : e;
      }
      tally.know(run.id, { entries: 0, bytes: 0 });
    },
    async append(id, list) {
      if (list.length === 0) return;
      if (!tally.knows(id)) {
        if (!byId.get(id)) throw journalNotFound(id);
        tally.know(id, size.get(id) as JournalSize);
      }
      const rows = journalEntryRows(list);
      const undo = tally.take(id, rows);
      const write = () =>
        rows.length === 1
          ? insert.run(id, rows[0]!.seq, rows[0]!.kind, rows[0]!.data)
          : insertAll(id, rows);
      try {
        // A call about to go out (never to be sent twice) and a held one (its approval is
        // rejoined) are synced; an answer or clock readings lost to a power cut only make a
        // replay say "outcome unknown" (sqlite-relaxed.ts), and the next synced commit syncs
        // them with it (the WAL is one sequence).
        if (rows.some((row) => row.kind === 'call' || row.kind === 'held')) write();
        else relaxed(write);
      } catch (e) {
        undo();
        throw isConstraint(e) ? journalSeqConflict(id, rows) : e;
      }
    },
    async entries(id) {
      return (entries.all(id) as { seq: number; kind: string; data: string }[]).map(journalEntryOf);
    },
    async get(id) {
      const row = byId.get(id) as JournalRunRow | undefined;
      return row ? journalRunOf(row) : undefined;
    },
    async claim(instanceId, leaseUntil, { mine, now, limit }) {
      const taken = claim.immediate(instanceId, leaseUntil, mine, now, limit);
      for (const row of taken) tally.forget(row.id as string);
      return taken.map(journalRunOf);
    },
    async renew(ids, instanceId, leaseUntil) {
      if (ids.length > 0) renew.run(leaseUntil, instanceId, JSON.stringify(ids));
    },
    async finish(id) {
      finish(id);
      tally.forget(id);
    },
    async size(id) {
      return { ...(size.get(id) as JournalSize) };
    },
  };
}
