/**
 * @module Keeps the cap on a run's journal without reading on the append path: each store counts
 * the entries and bytes of the runs it appends to, reading a run's size once (the first append
 * after a begin elsewhere, a claim or a restart).
 */
import { MAX_JOURNAL_BYTES, MAX_JOURNAL_ENTRIES } from '../config/defaults.ts';
import { CodemuxError } from '../errors/index.ts';
import type { JournalEntryRow } from './run-journal-rows.ts';
import type { JournalSize } from './run-journal-store.ts';

/** The bounds on one run's journal (smaller ones in tests). */
export interface JournalLimits {
  entries: number;
  bytes: number;
}

export const JOURNAL_LIMITS: JournalLimits = {
  entries: MAX_JOURNAL_ENTRIES,
  bytes: MAX_JOURNAL_BYTES,
};

/** Counts per run, in this process. */
export class JournalTally {
  readonly #runs = new Map<string, JournalSize>();
  constructor(private readonly limits: JournalLimits = JOURNAL_LIMITS) {}

  /** Whether run `id`'s size is known here (else the store reads it and calls `know`). */
  knows(id: string): boolean {
    return this.#runs.has(id);
  }

  know(id: string, size: JournalSize): void {
    this.#runs.set(id, { ...size });
  }

  /** Forgets run `id` (finished, or claimed: another instance may have appended). */
  forget(id: string): void {
    this.#runs.delete(id);
  }

  /**
   * Counts `rows` against run `id`'s bound, throwing JOURNAL_FULL past it (nothing counted);
   * returns the undo for a write that then failed.
   */
  take(id: string, rows: readonly JournalEntryRow[]): () => void {
    const size = this.#runs.get(id) ?? { entries: 0, bytes: 0 };
    let bytes = 0;
    for (const row of rows) bytes += row.bytes;
    if (size.entries + rows.length > this.limits.entries) {
      throw new CodemuxError(
        'JOURNAL_FULL',
        `run ${id}'s journal would pass ${this.limits.entries} entries, the most one run may journal`,
      );
    }
    if (size.bytes + bytes > this.limits.bytes) {
      throw new CodemuxError(
        'JOURNAL_FULL',
        `run ${id}'s journal would pass ${this.limits.bytes} bytes, the most one run may journal`,
      );
    }
    size.entries += rows.length;
    size.bytes += bytes;
    this.#runs.set(id, size);
    return () => {
      size.entries -= rows.length;
      size.bytes -= bytes;
    };
  }
}
