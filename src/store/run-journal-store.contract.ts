/** @module The run journal store's contract suite: every implementation (memory, SQLite, PostgreSQL) runs it. */
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalLimits } from './journal-tally.ts';
import type { JournalEntry, JournalRun, RunJournalStore } from './run-journal-store.ts';

export interface OpenedRunJournals {
  journals: RunJournalStore;
  /** A second store on the same database, as another instance has (none in memory). */
  another?: () => Promise<RunJournalStore>;
  /** Closes the stores and removes what the test created. */
  dispose(): Promise<void>;
}

const at = (minute: number) => `2026-12-06T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A run with every field set; `over` replaces some. */
export function journalRun(over: Partial<JournalRun> & { id: string }): JournalRun {
  return {
    owner: 'token:ci',
    caller: { kind: 'token', name: 'ci', servers: ['fs', 'gh'] },
    kind: 'code_execution',
    tool: null,
    request: { code: 'await fs.read({ path: "é" })', options: { timeout_ms: 5000 } },
    surface: 'mcp',
    program_sha256: 'a'.repeat(64),
    seed: '0123456789abcdef',
    instance_id: 'gw-1',
    lease_until: at(10),
    resumed: 0,
    created_at: at(0),
    ...over,
  };
}

const call = (seq: number, data: unknown = { server: 'fs', tool: 'read', args: { n: seq } }) =>
  ({ seq, kind: 'call', data }) satisfies JournalEntry;

/** The code of a CodemuxError `promise` rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return (error as { code?: string } | undefined)?.code ?? 'resolved';
}

export function runJournalStoreContract(
  label: string,
  open: (limits?: JournalLimits) => Promise<OpenedRunJournals>,
): void {
  describe(`run journal store contract: ${label}`, () => {
    let opened: OpenedRunJournals | undefined;
    const store = async (limits?: JournalLimits) => {
      opened = await open(limits);
      return opened.journals;
    };
    afterEach(async () => {
      await opened?.dispose();
      opened = undefined;
    });

    it('keeps a header as written and refuses a second begin of one id', async () => {
      const journals = await store();
      const run = journalRun({ id: '01', kind: 'code_tool', tool: 'digest', resumed: 2 });
      await journals.begin(run);
      expect(await journals.get('01')).toEqual(run);
      expect(await journals.get('nope')).toBeUndefined();
      expect(await codeOf(journals.begin(journalRun({ id: '01' })))).toBe('JOURNAL_CONFLICT');
      expect(await journals.get('01')).toEqual(run);
    });

    it('hands back entries ordered by seq, their data as written, whatever order they came in', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '02' }));
      await journals.append('02', [call(0)]);
      await journals.append('02', [
        { seq: 2, kind: 'answer', data: { ok: true, result: { text: 'é ✓', n: [1, null] } } },
        { seq: 1, kind: 'clock', data: 1765015200123 },
      ]);
      await journals.append('02', [{ seq: 3, kind: 'catalog', data: null }]);
      await journals.append('02', []);
      expect(await journals.entries('02')).toEqual([
        call(0),
        { seq: 1, kind: 'clock', data: 1765015200123 },
        { seq: 2, kind: 'answer', data: { ok: true, result: { text: 'é ✓', n: [1, null] } } },
        { seq: 3, kind: 'catalog', data: null },
      ]);
      expect(await journals.entries('nope')).toEqual([]);
    });

    it('refuses a seq the run already has, or a batch repeating one, writing nothing of the batch', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '03' }));
      await journals.append('03', [call(0), call(1)]);
      expect(await codeOf(journals.append('03', [call(1, 'again')]))).toBe('JOURNAL_CONFLICT');
      expect(await codeOf(journals.append('03', [call(2), call(1, 'again')]))).toBe(
        'JOURNAL_CONFLICT',
      );
      expect(await codeOf(journals.append('03', [call(2), call(2)]))).toBe('JOURNAL_CONFLICT');
      expect(await journals.entries('03')).toEqual([call(0), call(1)]);
      // A refused batch is not counted: the journal goes on.
      await journals.append('03', [call(2)]);
      expect(await journals.size('03')).toMatchObject({ entries: 3 });
    });

    it('refuses entries for a run never begun or finished', async () => {
      const journals = await store();
      expect(await codeOf(journals.append('nope', [call(0)]))).toBe('JOURNAL_NOT_FOUND');
      await journals.begin(journalRun({ id: '04' }));
      await journals.append('04', [call(0)]);
      await journals.finish('04');
      expect(await codeOf(journals.append('04', [call(1)]))).toBe('JOURNAL_NOT_FOUND');
    });

    it('counts entries and UTF-8 bytes of kind and JSON data', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '05' }));
      expect(await journals.size('05')).toEqual({ entries: 0, bytes: 0 });
      await journals.append('05', [{ seq: 0, kind: 'call', data: 'é' }]);
      await journals.append('05', [{ seq: 1, kind: 'answer', data: { a: 1 } }]);
      // "call" 4 + "\"é\"" 4, "answer" 6 + {"a":1} 7.
      expect(await journals.size('05')).toEqual({ entries: 2, bytes: 21 });
      expect(await journals.size('nope')).toEqual({ entries: 0, bytes: 0 });
    });

    it('refuses an append past the bound on entries or bytes, naming it, and writes none of it', async () => {
      const journals = await store({ entries: 3, bytes: 40 });
      await journals.begin(journalRun({ id: '06' }));
      await journals.append('06', [
        { seq: 0, kind: 'a', data: 1 },
        { seq: 1, kind: 'a', data: 1 },
      ]);
      const full = journals.append('06', [
        { seq: 2, kind: 'a', data: 1 },
        { seq: 3, kind: 'a', data: 1 },
      ]);
      await expect(full).rejects.toMatchObject({
        code: 'JOURNAL_FULL',
        message: expect.stringContaining('3 entries'),
      });
      expect(await journals.size('06')).toEqual({ entries: 2, bytes: 4 });
      await journals.begin(journalRun({ id: '07' }));
      await journals.append('07', [{ seq: 0, kind: 'answer', data: 'x'.repeat(20) }]);
      await expect(
        journals.append('07', [{ seq: 1, kind: 'answer', data: 'x'.repeat(10) }]),
      ).rejects.toMatchObject({
        code: 'JOURNAL_FULL',
        message: expect.stringContaining('40 bytes'),
      });
      expect(await journals.entries('07')).toHaveLength(1);
      await journals.append('06', [{ seq: 2, kind: 'a', data: 1 }]);
      expect(await journals.size('06')).toEqual({ entries: 3, bytes: 6 });
    });

    it('claims runs whose lease lapsed, oldest first, at most the limit, and only once', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '12', created_at: at(2), lease_until: at(5) }));
      await journals.begin(journalRun({ id: '11', created_at: at(1), lease_until: at(5) }));
      await journals.begin(journalRun({ id: '13', created_at: at(3), lease_until: at(9) }));
      await journals.begin(
        journalRun({ id: '14', created_at: at(4), lease_until: at(4), instance_id: 'gw-3' }),
      );
      const claimed = await journals.claim('gw-2', at(20), { mine: false, now: at(6), limit: 2 });
      expect(claimed).toEqual([
        journalRun({
          id: '11',
          created_at: at(1),
          instance_id: 'gw-2',
          lease_until: at(20),
          resumed: 1,
        }),
        journalRun({
          id: '12',
          created_at: at(2),
          instance_id: 'gw-2',
          lease_until: at(20),
          resumed: 1,
        }),
      ]);
      expect(await journals.get('11')).toEqual(claimed[0]);
      const rest = await journals.claim('gw-2', at(20), { mine: false, now: at(6), limit: 10 });
      expect(rest.map((r) => [r.id, r.instance_id, r.resumed])).toEqual([['14', 'gw-2', 1]]);
      // Taken runs now hold a lease; the live one (13) was never lapsed.
      expect(await journals.claim('gw-3', at(30), { mine: false, now: at(6), limit: 10 })).toEqual(
        [],
      );
      expect((await journals.get('13'))?.instance_id).toBe('gw-1');
    });

    it('claims, with `mine`, the runs its instance owned whatever their lease', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '21', lease_until: at(50) }));
      await journals.begin(journalRun({ id: '22', lease_until: at(1) }));
      await journals.begin(journalRun({ id: '23', instance_id: 'gw-2', lease_until: at(1) }));
      const mine = await journals.claim('gw-1', at(40), { mine: true, now: at(5), limit: 10 });
      expect(mine.map((r) => [r.id, r.lease_until, r.resumed])).toEqual([
        ['21', at(40), 1],
        ['22', at(40), 1],
      ]);
      const again = await journals.claim('gw-1', at(41), { mine: true, now: at(5), limit: 1 });
      expect(again.map((r) => [r.id, r.resumed])).toEqual([['21', 2]]);
      expect((await journals.get('23'))?.resumed).toBe(0);
    });

    it('renews only the leases of runs its instance owns', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '31' }));
      await journals.begin(journalRun({ id: '32' }));
      await journals.begin(journalRun({ id: '33', instance_id: 'gw-2' }));
      await journals.renew(['31', '33', 'nope'], 'gw-1', at(30));
      await journals.renew([], 'gw-1', at(31));
      expect((await journals.get('31'))?.lease_until).toBe(at(30));
      expect((await journals.get('32'))?.lease_until).toBe(at(10));
      expect((await journals.get('33'))?.lease_until).toBe(at(10));
      // Once claimed away, the old owner's renewals no longer reach it.
      await journals.claim('gw-2', at(50), { mine: false, now: at(40), limit: 10 });
      await journals.renew(['31'], 'gw-1', at(59));
      expect((await journals.get('31'))?.lease_until).toBe(at(50));
    });

    it('deletes a finished run’s header and entries, and leaves the others', async () => {
      const journals = await store();
      await journals.begin(journalRun({ id: '41' }));
      await journals.begin(journalRun({ id: '42' }));
      await journals.append('41', [call(0), call(1)]);
      await journals.append('42', [call(0)]);
      await journals.finish('41');
      await journals.finish('nope');
      expect(await journals.get('41')).toBeUndefined();
      expect(await journals.entries('41')).toEqual([]);
      expect(await journals.size('41')).toEqual({ entries: 0, bytes: 0 });
      expect(await journals.entries('42')).toEqual([call(0)]);
      // The id may be journaled again from nothing.
      await journals.begin(journalRun({ id: '41' }));
      await journals.append('41', [call(0)]);
      expect(await journals.entries('41')).toEqual([call(0)]);
    });

    it('lets another instance claim a run, counting what the first journaled against the bound', async (context) => {
      const journals = await store({ entries: 3, bytes: 1_000 });
      if (!opened?.another) return context.skip();
      const other = await opened.another();
      await journals.begin(journalRun({ id: '51', lease_until: at(1) }));
      await journals.append('51', [call(0), call(1)]);
      expect(
        await other.claim('gw-2', at(20), { mine: false, now: at(2), limit: 10 }),
      ).toHaveLength(1);
      expect(await other.entries('51')).toEqual([call(0), call(1)]);
      await other.append('51', [call(2)]);
      expect(await codeOf(other.append('51', [call(3)]))).toBe('JOURNAL_FULL');
      // The first owner, still writing, collides with what the new owner journaled.
      expect(await codeOf(journals.append('51', [call(2, 'late')]))).toBe('JOURNAL_CONFLICT');
    });

    it('gives each lapsed run to only one of two instances claiming at once', async (context) => {
      const journals = await store();
      if (!opened?.another) return context.skip();
      const other = await opened.another();
      const ids = Array.from({ length: 20 }, (_, i) => `6${String(i).padStart(2, '0')}`);
      for (const id of ids) await journals.begin(journalRun({ id, lease_until: at(1) }));
      const claims = await Promise.all(
        [journals, other, journals, other].map((s, i) =>
          s.claim(`gw-${i + 2}`, at(20), { mine: false, now: at(2), limit: 7 }),
        ),
      );
      const taken = claims.flat().map((r) => r.id);
      expect(taken.toSorted()).toEqual(ids);
      for (const id of ids) expect((await journals.get(id))?.resumed).toBe(1);
    });
  });
}
