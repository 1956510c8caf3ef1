import { describe, expect, it } from 'vitest';
import { memoryRunJournalStore, type RunJournalStore } from '../../store/index.ts';
import { RunJournal } from './run-journal.ts';

const HEADER = {
  id: 'run-1',
  owner: 'admin',
  caller: { kind: 'admin' },
  kind: 'code_execution' as const,
  tool: null,
  request: { code: '1' },
  surface: 'mcp',
};
const lease = () => ({ id: 'i-first', leaseUntil: new Date(Date.now() + 60_000).toISOString() });

/** A journal written live: two calls answered, one sent and never answered, one held. */
async function written(store: RunJournalStore) {
  const journal = new RunJournal(store, HEADER, lease);
  journal.bind({ code: '1' });
  await journal.readings([1000, 1001]);
  const a = journal.next();
  await journal.sent(a, { what: 's.read', server: 's', tool: 'read', args_sha256: 'x' });
  await journal.answered(a, { ok: true, result: { content: [] } });
  await journal.readings([1002]);
  const b = journal.next();
  await journal.sent(b, { what: 's.read', server: 's', tool: 'read', args_sha256: 'y' });
  await journal.answered(b, { ok: true, result: { content: [{ type: 'text', text: 'b' }] } });
  const c = journal.next();
  await journal.sent(c, { what: 's.write', server: 's', tool: 'write', args_sha256: 'z' });
  const d = journal.next();
  await journal.held(d, 'approval-1');
  return journal;
}

async function resumed(store: RunJournalStore) {
  const [record] = await store.claim('i-second', new Date(Date.now() + 60_000).toISOString(), {
    mine: false,
    now: new Date(Date.now() + 120_000).toISOString(),
    limit: 1,
  });
  return new RunJournal(store, HEADER, lease, {
    record: record!,
    entries: await store.entries(HEADER.id),
  });
}

describe('RunJournal', () => {
  it('answers what the run did from its journal on resume, in order', async () => {
    const store = memoryRunJournalStore();
    const first = await written(store);
    const again = await resumed(store);
    expect(again.seed).toBe(first.seed);
    expect(again.replaying).toBe(true);
    expect(again.resumedCount).toBe(1);
    expect(again.replayClock).toEqual([1000, 1001, 1002]);
    expect(again.bind({ code: '1' })).toBeUndefined();
    expect(again.replayed(again.next(), 's.read', 'x')).toEqual({
      answer: { ok: true, result: { content: [] } },
    });
    expect(again.replayed(again.next(), 's.read', 'y')).toMatchObject({ answer: { ok: true } });
    // Sent before the stop, never answered: its outcome is unknown, and it is not sent again.
    expect(again.replayed(again.next(), 's.write', 'z')).toEqual({ unknown: true });
    // Held for approval-1 when the instance stopped: the resume waits on it again.
    expect(again.replayed(again.next(), 's.wipe', 'w')).toEqual({ held: 'approval-1' });
    // Past the journal: live.
    expect(again.replayed(again.next(), 's.read', 'q')).toBeUndefined();
  });

  it('tells a program that asks for something else, or is another program, REPLAY_DIVERGED', async () => {
    const store = memoryRunJournalStore();
    await written(store);
    const again = await resumed(store);
    expect(again.bind({ code: '2' })).toMatchObject({ code: 'REPLAY_DIVERGED' });
    const step = again.replayed(again.next(), 's.delete', 'x');
    expect(step).toEqual({
      diverged:
        'asked for s.delete at step 1, where its journal holds s.read (with the same arguments)',
    });
    expect(again.replayed(again.next(), 's.read', 'other')).toMatchObject({
      diverged: expect.stringContaining('with other arguments'),
    });
  });

  it('continues numbering entries after a resume, and writes nothing once the run ended', async () => {
    const store = memoryRunJournalStore();
    await written(store);
    const again = await resumed(store);
    const before = (await store.entries(HEADER.id)).length;
    const next = again.next();
    await again.answered(next, { ok: true, result: { content: [] } });
    const entries = await store.entries(HEADER.id);
    expect(entries).toHaveLength(before + 1);
    expect(new Set(entries.map((e) => e.seq)).size).toBe(entries.length);
    await again.finish();
    await again.readings([5]);
    expect(await store.get(HEADER.id)).toBeUndefined();
    expect(await store.entries(HEADER.id)).toEqual([]);
  });

  it('begins lazily: a run that journals nothing writes nothing; a failing store stops the run', async () => {
    const store = memoryRunJournalStore();
    const quiet = new RunJournal(store, HEADER, lease);
    quiet.bind('digest');
    await quiet.finish();
    expect(await store.get(HEADER.id)).toBeUndefined();

    const broken: RunJournalStore = {
      ...store,
      begin: async () => {
        throw new Error('database is down');
      },
    };
    const journal = new RunJournal(broken, { ...HEADER, id: 'run-2' }, lease);
    await expect(journal.readings([1])).rejects.toThrow(/database is down/);
    expect(journal.failure).toContain('code_execution_durable');
    await expect(journal.sent(journal.next(), { what: 'a.b', args_sha256: 'x' })).rejects.toThrow(
      /could not be written/,
    );
  });
});
