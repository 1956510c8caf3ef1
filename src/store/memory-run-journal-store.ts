/** @module Run journals kept in memory: the store of a runtime without a database (tests; one process, so nothing survives it). */
import { type JournalLimits, JournalTally } from './journal-tally.ts';
import {
  type JournalEntryRow,
  journalConflict,
  journalEntryOf,
  journalEntryRows,
  journalNotFound,
  journalSeqConflict,
  oldestFirst,
} from './run-journal-rows.ts';
import type { JournalRun, RunJournalStore } from './run-journal-store.ts';

interface Kept {
  run: JournalRun;
  /** By seq; data as the JSON text the databases keep. */
  entries: Map<number, JournalEntryRow>;
}

/** Journals in this process, as the databases keep them: every value is copied in and out. */
export function memoryRunJournalStore(limits?: JournalLimits): RunJournalStore {
  const runs = new Map<string, Kept>();
  const tally = new JournalTally(limits);
  const sizeOf = (kept: Kept | undefined) => {
    let bytes = 0;
    for (const row of kept?.entries.values() ?? []) bytes += row.bytes;
    return { entries: kept?.entries.size ?? 0, bytes };
  };
  return {
    async begin(run) {
      if (runs.has(run.id)) throw journalConflict(run.id, 'a header');
      runs.set(run.id, { run: structuredClone(run), entries: new Map() });
      tally.know(run.id, { entries: 0, bytes: 0 });
    },
    async append(id, list) {
      if (list.length === 0) return;
      const kept = runs.get(id);
      if (!kept) throw journalNotFound(id);
      if (!tally.knows(id)) tally.know(id, sizeOf(kept));
      const rows = journalEntryRows(list);
      const seqs = new Set(rows.map((r) => r.seq));
      if (seqs.size < rows.length || rows.some((r) => kept.entries.has(r.seq))) {
        throw journalSeqConflict(id, rows);
      }
      tally.take(id, rows);
      for (const row of rows) kept.entries.set(row.seq, row);
    },
    async entries(id) {
      const kept = runs.get(id);
      if (!kept) return [];
      return [...kept.entries.values()].sort((a, b) => a.seq - b.seq).map(journalEntryOf);
    },
    async get(id) {
      const kept = runs.get(id);
      return kept && structuredClone(kept.run);
    },
    async claim(instanceId, leaseUntil, { mine, now, limit }) {
      const taken = [...runs.values()]
        .map((k) => k.run)
        .filter((r) => (mine ? r.instance_id === instanceId : r.lease_until < now))
        .sort(oldestFirst)
        .slice(0, limit);
      for (const run of taken) {
        run.instance_id = instanceId;
        run.lease_until = leaseUntil;
        run.resumed++;
        tally.forget(run.id);
      }
      return taken.map((r) => structuredClone(r));
    },
    async renew(ids, instanceId, leaseUntil) {
      for (const id of ids) {
        const run = runs.get(id)?.run;
        if (run?.instance_id === instanceId) run.lease_until = leaseUntil;
      }
    },
    async finish(id) {
      runs.delete(id);
      tally.forget(id);
    },
    async size(id) {
      return sizeOf(runs.get(id));
    },
  };
}
