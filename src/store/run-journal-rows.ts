/** @module A run journal as rows of either database: every header column TEXT but `resumed`; caller, request and entry data as JSON text. */
import { CodemuxError } from '../errors/index.ts';
import type { JournalEntry, JournalRun } from './run-journal-store.ts';

/** The header's columns, in JournalRun's field order. */
export const JOURNAL_RUN_COLUMNS = [
  'id',
  'owner',
  'caller',
  'kind',
  'tool',
  'request',
  'surface',
  'program_sha256',
  'seed',
  'instance_id',
  'lease_until',
  'resumed',
  'created_at',
] as const;

export type JournalRunRow = Record<(typeof JOURNAL_RUN_COLUMNS)[number], string | number | null>;

/** An entry as it is written: its data as JSON text and the bytes the cap counts. */
export interface JournalEntryRow {
  seq: number;
  kind: string;
  data: string;
  bytes: number;
}

export function journalRunOf(row: JournalRunRow): JournalRun {
  return {
    id: row.id as string,
    owner: row.owner as string,
    caller: JSON.parse(row.caller as string) as unknown,
    kind: row.kind as JournalRun['kind'],
    tool: row.tool as string | null,
    request: JSON.parse(row.request as string) as unknown,
    surface: row.surface as string,
    program_sha256: row.program_sha256 as string,
    seed: row.seed as string,
    instance_id: row.instance_id as string,
    lease_until: row.lease_until as string,
    resumed: Number(row.resumed),
    created_at: row.created_at as string,
  };
}

export function journalRunValues(run: JournalRun): (string | number | null)[] {
  return JOURNAL_RUN_COLUMNS.map((c) => {
    if (c === 'caller' || c === 'request') return JSON.stringify(run[c] ?? null);
    return run[c];
  });
}

/** Serializes entries once: the text written is the text the cap counts. */
export function journalEntryRows(entries: readonly JournalEntry[]): JournalEntryRow[] {
  return entries.map((e) => {
    const data = JSON.stringify(e.data ?? null);
    return {
      seq: e.seq,
      kind: e.kind,
      data,
      bytes: Buffer.byteLength(e.kind) + Buffer.byteLength(data),
    };
  });
}

export function journalEntryOf(row: {
  seq: number | string;
  kind: string;
  data: string;
}): JournalEntry {
  return { seq: Number(row.seq), kind: row.kind, data: JSON.parse(row.data) as unknown };
}

/** A seq (or header) the run already has: a second writer, or a writer's mistake. */
export function journalConflict(id: string, what: string): CodemuxError {
  return new CodemuxError('JOURNAL_CONFLICT', `run ${id}'s journal already has ${what}`);
}

/** Appending to a run that was never begun, or has finished. */
export function journalNotFound(id: string): CodemuxError {
  return new CodemuxError(
    'JOURNAL_NOT_FOUND',
    `run ${id} has no journal (never begun, or finished)`,
  );
}

/** A batch that repeats a seq the run has (or repeats one of its own). */
export function journalSeqConflict(id: string, rows: readonly { seq: number }[]): CodemuxError {
  const seqs = rows.map((r) => r.seq);
  return journalConflict(
    id,
    seqs.length === 1 ? `an entry of seq ${seqs[0]}` : `an entry of one of seqs ${seqs.join(', ')}`,
  );
}

/** Claim order: the oldest run first (ids break ties). */
export function oldestFirst(a: JournalRun, b: JournalRun): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
