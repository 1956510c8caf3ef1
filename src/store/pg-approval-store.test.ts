import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settle } from '../../test/helpers.ts';
import { type SharedPostgres, sharedPostgres } from '../../test/shared-postgres.ts';
import { approvalRecord, approvalStoreContract } from './approval-store.contract.ts';
import { openPgStore, type PgStore } from './pg-store.ts';

let server: SharedPostgres;
let databases = 0;
beforeAll(() => {
  server = sharedPostgres();
});
afterAll(async () => {
  await server?.drop();
});

approvalStoreContract('PostgreSQL', async () => {
  const store = await openPgStore(await server.database(`approvals${++databases}`));
  return { approvals: store.approvals, dispose: () => store.close() };
});

/** Polls `check` until it holds or `withinMs` passes. */
const eventually = (check: () => boolean, withinMs = 1_000): Promise<boolean> =>
  settle(
    async () => check(),
    (held) => held,
    withinMs,
    10,
  );

describe('approvals across instances on one PostgreSQL database', () => {
  let one: PgStore;
  let two: PgStore;
  beforeAll(async () => {
    const url = await server.database(`approvals${++databases}`);
    one = await openPgStore(url);
    two = await openPgStore(url);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('tells the other instance of a creation and a decision within a second, never its own', async () => {
    const heardByOne: string[] = [];
    const heardByTwo: string[] = [];
    const stopOne = one.approvals.onChange((id) => heardByOne.push(id));
    const stopTwo = two.approvals.onChange((id) => heardByTwo.push(id));
    try {
      await one.approvals.create(approvalRecord({ id: '01' }));
      expect(await eventually(() => heardByTwo.length === 1)).toBe(true);
      expect(heardByTwo).toEqual(['01']);
      expect((await two.approvals.get('01'))?.status).toBe('pending');

      await one.approvals.decide('01', 'approved', 'admin', new Date().toISOString());
      expect(await eventually(() => heardByTwo.length === 2)).toBe(true);
      expect(heardByTwo).toEqual(['01', '01']);
      expect((await two.approvals.get('01'))?.status).toBe('approved');

      // A decision that changed nothing is not news.
      await two.approvals.decide('01', 'denied', 'admin', new Date().toISOString());
      // Two's own write is heard by one: once it is, one's earlier notices have arrived too.
      await two.approvals.create(approvalRecord({ id: '02' }));
      expect(await eventually(() => heardByOne.length === 1)).toBe(true);
      expect(heardByOne).toEqual(['02']);
      expect(heardByTwo).toEqual(['01', '01']);
    } finally {
      stopOne();
      stopTwo();
    }
  });

  it('stops telling a listener once it unsubscribed', async () => {
    const heard: string[] = [];
    const stop = two.approvals.onChange((id) => heard.push(id));
    stop();
    const kept: string[] = [];
    const stopKept = two.approvals.onChange((id) => kept.push(id));
    try {
      await one.approvals.create(approvalRecord({ id: '03' }));
      expect(await eventually(() => kept.length === 1)).toBe(true);
      expect(heard).toEqual([]);
    } finally {
      stopKept();
    }
  });

  it('gives exactly one of two concurrent decisions from two instances', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `1${i.toString(16).padStart(2, '0')}`);
    for (const id of ids) await one.approvals.create(approvalRecord({ id }));
    const at = new Date().toISOString();
    for (const id of ids) {
      const [a, b] = await Promise.all([
        one.approvals.decide(id, 'approved', 'admin', at),
        two.approvals.decide(id, 'denied', 'elicitation', at),
      ]);
      const outcomes = [a.outcome, b.outcome].sort();
      expect(outcomes, id).toEqual(['already', 'decided']);
      // The loser is answered with the winner's decision, which is what the store holds.
      const [won, lost] = a.outcome === 'decided' ? [a, b] : [b, a];
      const winning = 'approval' in won ? won.approval : undefined;
      expect(lost).toEqual({ outcome: 'already', approval: winning });
      expect(await one.approvals.get(id)).toEqual(winning);
    }
  });
});

it('stores one execution’s program once for its several held calls (issue 33, item 6)', async () => {
  const url = await server.database(`approvals${++databases}`);
  const store = await openPgStore(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const code = `const big = '${'p'.repeat(20_000)}'; call_tools([...])`;
  try {
    for (const n of [1, 2, 3]) {
      await store.approvals.create(approvalRecord({ id: `0${n}`, code, tool: `t${n}` }));
    }
    for (const a of await store.approvals.list({ limit: 10 })) expect(a.code).toBe(code);
    const decided = await store.approvals.decide('01', 'denied', 'admin', 'x');
    expect(decided).toMatchObject({ outcome: 'decided', approval: { code } });
    // Every byte of program text in the database, whichever table holds it.
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.columns WHERE column_name = 'code' AND table_name IN ('approvals', 'approval_programs')",
    );
    let bytes = 0;
    for (const { table_name } of rows) {
      const sum = await client.query(
        `SELECT COALESCE(SUM(LENGTH(code)), 0)::int AS n FROM ${table_name}`,
      );
      bytes += sum.rows[0].n;
    }
    expect(bytes).toBe(code.length);
  } finally {
    await client.end();
    await store.close();
  }
});
