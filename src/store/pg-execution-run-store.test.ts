import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle } from '../../test/helpers.ts';
import { type SharedPostgres, sharedPostgres } from '../../test/shared-postgres.ts';
import { executionRun, executionRunStoreContract } from './execution-run-store.contract.ts';
import { openPgStore, type PgStore } from './pg-store.ts';

let server: SharedPostgres;
let databases = 0;
beforeAll(() => {
  server = sharedPostgres();
});
afterAll(async () => {
  await server?.drop();
});

executionRunStoreContract('PostgreSQL', async () => {
  const store = await openPgStore(await server.database(`runs${++databases}`));
  return { runs: store.executionRuns, dispose: () => store.close() };
});

describe('yielded runs across instances on one PostgreSQL database', () => {
  let one: PgStore;
  let two: PgStore;
  beforeAll(async () => {
    const url = await server.database(`runs${++databases}`);
    one = await openPgStore(url);
    two = await openPgStore(url);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('tells the other instance of a write and of a cancel request within a second', async () => {
    const heardByOne: string[] = [];
    const heardByTwo: string[] = [];
    const stopOne = one.executionRuns.onChange((id) => heardByOne.push(id));
    const stopTwo = two.executionRuns.onChange((id) => heardByTwo.push(id));
    try {
      await one.executionRuns.put(executionRun({ id: '01', expires_at: '9999' }));
      expect(
        await settle(
          async () => heardByTwo.length,
          (n) => n === 1,
          1_000,
          10,
        ),
      ).toBe(1);
      expect(heardByTwo).toEqual(['01']);
      expect(await two.executionRuns.requestCancel('01', 'cancelled by admin', '2026')).toBe(true);
      expect(
        await settle(
          async () => heardByOne.length,
          (n) => n === 1,
          1_000,
          10,
        ),
      ).toBe(1);
      expect(heardByOne).toEqual(['01']);
      expect(await one.executionRuns.cancelRequests('gw-1')).toEqual([
        { id: '01', by: 'cancelled by admin' },
      ]);
    } finally {
      stopOne();
      stopTwo();
    }
  });
});
