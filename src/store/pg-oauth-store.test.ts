import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { settle } from '../../test/helpers.ts';
import { type SharedPostgres, sharedPostgres } from '../../test/shared-postgres.ts';
import { gate, oauthFlow, oauthStoreContract } from './oauth-store.contract.ts';
import { openPgStore, type PgStore } from './pg-store.ts';

let server: SharedPostgres;
let databases = 0;
beforeAll(() => {
  server = sharedPostgres();
});
afterAll(async () => {
  await server?.drop();
});

oauthStoreContract('PostgreSQL', async () => {
  const url = await server.database(`oauth${++databases}`);
  const store = await openPgStore(url);
  const twins: PgStore[] = [];
  return {
    oauth: store.oauth,
    async twin() {
      twins.push(await openPgStore(url));
      return twins.at(-1)!.oauth;
    },
    async dispose() {
      for (const twin of twins) await twin.close();
      await store.close();
    },
  };
});

/** Polls `check` until it holds or `withinMs` passes. */
const eventually = (check: () => boolean, withinMs = 1_000): Promise<boolean> =>
  settle(
    async () => check(),
    (held) => held,
    withinMs,
    10,
  );

const NOW = '2026-12-03T10:01:00.000Z';

/** Resolves once some session waits for an advisory lock (the other instance is queued on it). */
async function someoneWaitsForALock(url: string): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const waiting = async () =>
      (
        await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        )
      ).rows[0]!.n;
    await vi.waitFor(async () => expect(await waiting()).toBeGreaterThan(0), { timeout: 10_000 });
  } finally {
    await client.end();
  }
}

describe('upstream OAuth across instances on one PostgreSQL database', () => {
  let one: PgStore;
  let two: PgStore;
  let url: string;
  beforeAll(async () => {
    url = await server.database(`oauth${++databases}`);
    one = await openPgStore(url);
    two = await openPgStore(url);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('tells the other instance of each write within a second, naming the server', async () => {
    const heard: string[] = [];
    const stop = two.oauth.onChange((s) => heard.push(s));
    const flow = oauthFlow({ id: 'n1', server: 'notified' });
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['put (create)', () => one.oauth.put('notified', { server_url: 'https://n.example.com' })],
      ['put (update)', () => one.oauth.put('notified', { tokens_sealed: 'v1.t' })],
      ['createFlow', () => one.oauth.createFlow(flow)],
      ['claimFlow', () => one.oauth.claimFlow(flow.state_sha256, NOW)],
      ['finishFlow', () => one.oauth.finishFlow('n1', 'completed', null, NOW)],
      ['delete', () => one.oauth.delete('notified')],
    ];
    try {
      for (const [label, write] of writes) {
        const before = heard.length;
        await write();
        expect(await eventually(() => heard.length === before + 1), label).toBe(true);
        expect(heard.at(-1), label).toBe('notified');
      }
      expect(await two.oauth.get('notified')).toBeUndefined();
    } finally {
      stop();
    }
  });

  it('says nothing of a claim or an ending that changed nothing', async () => {
    const flow = oauthFlow({ id: 'q1', server: 'quiet' });
    const heard: string[] = [];
    const stop = two.oauth.onChange((s) => heard.push(s));
    try {
      await one.oauth.createFlow(flow);
      await one.oauth.claimFlow(flow.state_sha256, NOW);
      await one.oauth.finishFlow('q1', 'completed', null, NOW);
      expect(await eventually(() => heard.length === 3)).toBe(true);
      heard.length = 0;
      await one.oauth.claimFlow(flow.state_sha256, NOW);
      await one.oauth.finishFlow('q1', 'failed', 'late', NOW);
      await one.oauth.delete('nothing-here');
      // One's next real write reaches two after the ones above would have.
      await one.oauth.put('quiet', { server_url: 'https://q.example.com' });
      expect(await eventually(() => heard.length > 0)).toBe(true);
      expect(heard).toEqual(['quiet']);
    } finally {
      stop();
    }
  });

  it('gives a state to exactly one of two instances claiming it at once', async () => {
    for (let i = 0; i < 20; i++) {
      const flow = oauthFlow({ id: `race${i}`, server: 'race' });
      await one.oauth.createFlow(flow);
      const [a, b] = await Promise.all([
        one.oauth.claimFlow(flow.state_sha256, NOW),
        two.oauth.claimFlow(flow.state_sha256, NOW),
      ]);
      expect([a, b].filter(Boolean), flow.id).toEqual([{ ...flow, status: 'exchanging' }]);
    }
  });

  it('makes the other instance wait for a refresh of the same server until the first ends', async () => {
    const log: string[] = [];
    const first = gate();
    const holding = gate();
    const a = one.oauth.withRefreshLock('shared', async () => {
      log.push('one start');
      holding.open();
      await first.opened;
      log.push('one end');
      return 'one';
    });
    await holding.opened;
    const b = two.oauth.withRefreshLock('shared', async () => {
      log.push('two start');
      return 'two';
    });
    // Another server's refresh is not held up.
    expect(await two.oauth.withRefreshLock('elsewhere', async () => 'free')).toBe('free');
    await someoneWaitsForALock(url);
    expect(log).toEqual(['one start']);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['one', 'two']);
    expect(log).toEqual(['one start', 'one end', 'two start']);
  });

  it('releases the lock across instances when the body throws', async () => {
    const failing = gate();
    const holding = gate();
    const a = one.oauth.withRefreshLock('thrown', async () => {
      holding.open();
      await failing.opened;
      throw new Error('refresh refused');
    });
    await holding.opened;
    let ran = false;
    const b = two.oauth.withRefreshLock('thrown', async () => {
      ran = true;
      return 'after';
    });
    await someoneWaitsForALock(url);
    expect(ran).toBe(false);
    failing.open();
    await expect(a).rejects.toThrow('refresh refused');
    expect(await b).toBe('after');
    // And one can take it again.
    expect(await one.oauth.withRefreshLock('thrown', async () => 'again')).toBe('again');
  });
});
