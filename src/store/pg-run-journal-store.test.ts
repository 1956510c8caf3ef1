import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SharedPostgres, sharedPostgres } from '../../test/shared-postgres.ts';
import { openPgDatabase, type PgDatabase } from './pg-database.ts';
import { pgRunJournalStore } from './pg-run-journal-store.ts';
import { openPgStore } from './pg-store.ts';
import { journalRun, runJournalStoreContract } from './run-journal-store.contract.ts';

let server: SharedPostgres;
let databases = 0;
beforeAll(() => {
  server = sharedPostgres();
});
afterAll(async () => {
  await server?.drop();
});

runJournalStoreContract('PostgreSQL', async (limits) => {
  const url = await server.database(`journals${++databases}`);
  // Each store is an instance's, with its own connections, so claims race for real.
  const opened: PgDatabase[] = [await openPgDatabase(url)];
  return {
    journals: pgRunJournalStore(opened[0]!, limits),
    async another() {
      const db = await openPgDatabase(url);
      opened.push(db);
      return pgRunJournalStore(db, limits);
    },
    async dispose() {
      for (const db of opened) await db.close();
    },
  };
});

describe('run journals across instances on one PostgreSQL database', () => {
  it('gives a lapsed run to exactly one of many instances claiming it at once, again and again', async () => {
    const url = await server.database(`journals${++databases}`);
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore(url)));
    try {
      const first = stores[0]!.runJournals;
      for (let round = 0; round < 10; round++) {
        const id = `race${round}`;
        await first.begin(journalRun({ id, lease_until: '2026-01-01T00:00:00.000Z' }));
        const claims = await Promise.all(
          stores.map((s, i) =>
            s.runJournals.claim(`gw-${i}`, '2027-01-01T00:00:00.000Z', {
              mine: false,
              now: '2026-06-01T00:00:00.000Z',
              limit: 5,
            }),
          ),
        );
        const winners = claims.flatMap((c, i) => c.map((r) => [r.id, `gw-${i}`]));
        expect(winners).toHaveLength(1);
        expect((await first.get(id))?.instance_id).toBe(winners[0]![1]);
        expect((await first.get(id))?.resumed).toBe(1);
      }
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
