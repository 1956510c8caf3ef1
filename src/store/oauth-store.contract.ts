/** @module The OAuth store's contract suite: every implementation (SQLite, PostgreSQL) runs it. */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OAuthFlow, OAuthStore } from './oauth-store.ts';

export interface OpenedOAuth {
  oauth: OAuthStore;
  /** Another instance on the same database (closed by dispose): its writes are a barrier for change notices. */
  twin(): Promise<OAuthStore>;
  /** Closes the store (and any twin) and removes what the test created. */
  dispose(): Promise<void>;
}

const CREATED_AT = '2026-12-03T10:00:00.000Z';
const NOW = '2026-12-03T10:01:00.000Z';

/** A pending flow of server `fs` with every field set; `over` replaces some. */
export function oauthFlow(over: Partial<OAuthFlow> & { id: string }): OAuthFlow {
  return {
    server: 'fs',
    state_sha256: createHash('sha256').update(`state of ${over.id}`).digest('hex'),
    verifier_sealed: `v1.sealed-verifier-of-${over.id}`,
    status: 'pending',
    error: null,
    created_at: CREATED_AT,
    expires_at: '2026-12-03T10:10:00.000Z',
    finished_at: null,
    ...over,
  };
}

/** Discovery state as a sign-in keeps it: nested, with non-ASCII text. */
export const DISCOVERY = {
  resource_metadata: { resource: 'https://mcp.example.com/mcp', scopes_supported: ['read'] },
  authorization_server: { issuer: 'https://auth.example.com', name: 'Exämple ✓', pkce: [null, 1] },
};

/** A promise and the function that settles it: tests order events by these, never by sleeping. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Resolves once the clock's ISO text has moved past `iso` (a later write's stamp is greater). */
async function clockPast(iso: string): Promise<void> {
  while (new Date().toISOString() <= iso) await new Promise((resolve) => setImmediate(resolve));
}

export function oauthStoreContract(label: string, open: () => Promise<OpenedOAuth>): void {
  describe(`OAuth store contract: ${label}`, () => {
    let opened: OpenedOAuth;
    let store: OAuthStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.oauth;
    });
    afterEach(async () => {
      await opened.dispose();
    });

    it('creates credentials on the first put, the fields not given null', async () => {
      const before = new Date().toISOString();
      await store.put('fs', { server_url: 'https://mcp.example.com/mcp', discovery: DISCOVERY });
      const row = await store.get('fs');
      expect(row).toEqual({
        server: 'fs',
        server_url: 'https://mcp.example.com/mcp',
        client_sealed: null,
        tokens_sealed: null,
        discovery: DISCOVERY,
        expires_at: null,
        scope: null,
        reason: null,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(row!.updated_at >= before).toBe(true);
      expect(await store.get('other')).toBeUndefined();
    });

    it('refuses a first put without server_url, creating nothing', async () => {
      await expect(store.put('fs', { tokens_sealed: 'v1.t' })).rejects.toThrow(
        'no OAuth credentials for "fs" yet: the first put must carry server_url',
      );
      await expect(store.put('fs', {})).rejects.toThrow('server_url');
      expect(await store.list()).toEqual([]);
    });

    it('writes only the fields given on a later put, keeping the others', async () => {
      await store.put('fs', {
        server_url: 'https://mcp.example.com/mcp',
        client_sealed: 'v1.client',
        discovery: DISCOVERY,
      });
      const first = await store.get('fs');
      await clockPast(first!.updated_at);
      await store.put('fs', {
        tokens_sealed: 'v1.tokens',
        expires_at: '2026-12-03T11:00:00.000Z',
        scope: 'read write',
      });
      const signedIn = await store.get('fs');
      expect(signedIn).toEqual({
        ...first,
        tokens_sealed: 'v1.tokens',
        expires_at: '2026-12-03T11:00:00.000Z',
        scope: 'read write',
        updated_at: expect.any(String),
      });
      expect(signedIn!.updated_at > first!.updated_at).toBe(true);

      // A refused refresh: the tokens go, the reason comes; an undefined field is not written.
      await store.put('fs', {
        tokens_sealed: null,
        expires_at: null,
        scope: null,
        reason: 'the refresh token was refused (invalid_grant)',
        client_sealed: undefined,
      });
      expect(await store.get('fs')).toEqual({
        ...first,
        reason: 'the refresh token was refused (invalid_grant)',
        updated_at: expect.any(String),
      });

      // A put with server_url on an existing row is an update too; discovery may be cleared.
      await store.put('fs', { server_url: 'https://moved.example.com/mcp', discovery: null });
      expect(await store.get('fs')).toMatchObject({
        server_url: 'https://moved.example.com/mcp',
        client_sealed: 'v1.client',
        discovery: null,
        reason: 'the refresh token was refused (invalid_grant)',
      });
    });

    it('lists every server’s credentials by name', async () => {
      for (const server of ['gitlab', 'fs', 'github'])
        await store.put(server, { server_url: `https://${server}.example.com/mcp` });
      const all = await store.list();
      expect(all.map((c) => [c.server, c.server_url])).toEqual([
        ['fs', 'https://fs.example.com/mcp'],
        ['github', 'https://github.example.com/mcp'],
        ['gitlab', 'https://gitlab.example.com/mcp'],
      ]);
      expect(all[0]).toEqual(await store.get('fs'));
    });

    it('forgets a server’s credentials and flows on delete, and only that server’s', async () => {
      await store.put('fs', { server_url: 'https://fs.example.com/mcp', tokens_sealed: 'v1.t' });
      await store.put('gh', { server_url: 'https://gh.example.com/mcp' });
      await store.createFlow(oauthFlow({ id: 'f1', server: 'fs' }));
      await store.createFlow(oauthFlow({ id: 'f2', server: 'fs', status: 'completed' }));
      await store.createFlow(oauthFlow({ id: 'g1', server: 'gh' }));
      expect(await store.delete('fs')).toBe(true);
      expect(await store.get('fs')).toBeUndefined();
      expect(await store.getFlow('f1')).toBeUndefined();
      expect(await store.getFlow('f2')).toBeUndefined();
      expect(await store.claimFlow(oauthFlow({ id: 'f1' }).state_sha256, NOW)).toBeUndefined();
      expect((await store.list()).map((c) => c.server)).toEqual(['gh']);
      expect(await store.getFlow('g1')).toEqual(oauthFlow({ id: 'g1', server: 'gh' }));
      expect(await store.delete('fs')).toBe(false);
      // Flows of a server never signed in go too.
      await store.createFlow(oauthFlow({ id: 'n1', server: 'new' }));
      expect(await store.delete('new')).toBe(false);
      expect(await store.getFlow('n1')).toBeUndefined();
    });

    it('keeps every field of a flow as created; a state is unique', async () => {
      const flow = oauthFlow({ id: 'f1' });
      await store.createFlow(flow);
      expect(await store.getFlow('f1')).toEqual(flow);
      expect(await store.getFlow('nope')).toBeUndefined();
      await expect(
        store.createFlow(oauthFlow({ id: 'f2', state_sha256: flow.state_sha256 })),
      ).rejects.toThrow();
      expect(await store.getFlow('f2')).toBeUndefined();
    });

    it('claims a pending flow once: it is exchanging, and the state is used up', async () => {
      const flow = oauthFlow({ id: 'f1' });
      await store.createFlow(flow);
      expect(await store.claimFlow('f'.repeat(64), NOW)).toBeUndefined();
      const claimed = await store.claimFlow(flow.state_sha256, NOW);
      expect(claimed).toEqual({ ...flow, status: 'exchanging' });
      expect(await store.getFlow('f1')).toEqual(claimed);
      expect(await store.claimFlow(flow.state_sha256, NOW)).toBeUndefined();
    });

    it('gives a state to exactly one of several concurrent claims', async () => {
      for (let i = 0; i < 10; i++) {
        const flow = oauthFlow({ id: `c${i}` });
        await store.createFlow(flow);
        const claims = await Promise.all(
          Array.from({ length: 5 }, () => store.claimFlow(flow.state_sha256, NOW)),
        );
        expect(claims.filter(Boolean), flow.id).toHaveLength(1);
      }
    });

    it('does not claim an expired flow (at its expiry or after), nor a finished one', async () => {
      await store.createFlow(oauthFlow({ id: 'e1', expires_at: NOW }));
      await store.createFlow(oauthFlow({ id: 'e2', expires_at: '2026-12-03T10:00:59.999Z' }));
      await store.createFlow(oauthFlow({ id: 'e3' }));
      expect(await store.claimFlow(oauthFlow({ id: 'e1' }).state_sha256, NOW)).toBeUndefined();
      expect(await store.claimFlow(oauthFlow({ id: 'e2' }).state_sha256, NOW)).toBeUndefined();
      expect((await store.getFlow('e1'))?.status).toBe('pending');
      await store.finishFlow('e3', 'expired', null, NOW);
      expect(await store.claimFlow(oauthFlow({ id: 'e3' }).state_sha256, NOW)).toBeUndefined();
    });

    it('finishes a flow as completed, failed or expired; the first ending stays', async () => {
      for (const id of ['a', 'b', 'c']) await store.createFlow(oauthFlow({ id }));
      await store.claimFlow(oauthFlow({ id: 'a' }).state_sha256, NOW);
      await store.finishFlow('a', 'completed', null, '2026-12-03T10:01:02.000Z');
      expect(await store.getFlow('a')).toEqual({
        ...oauthFlow({ id: 'a' }),
        status: 'completed',
        finished_at: '2026-12-03T10:01:02.000Z',
      });
      const error = 'access_denied: The user refused the request';
      await store.claimFlow(oauthFlow({ id: 'b' }).state_sha256, NOW);
      await store.finishFlow('b', 'failed', error, NOW);
      expect(await store.getFlow('b')).toMatchObject({ status: 'failed', error, finished_at: NOW });
      // A pending flow nobody answered.
      await store.finishFlow('c', 'expired', null, NOW);
      expect(await store.getFlow('c')).toMatchObject({ status: 'expired', finished_at: NOW });

      await store.finishFlow('a', 'expired', null, '2026-12-03T10:20:00.000Z');
      await store.finishFlow('b', 'completed', null, '2026-12-03T10:20:00.000Z');
      expect(await store.getFlow('a')).toMatchObject({ status: 'completed', error: null });
      expect(await store.getFlow('b')).toMatchObject({ status: 'failed', error, finished_at: NOW });
      await store.finishFlow('nope', 'completed', null, NOW);
    });

    it('trims flows created before the instant, whatever their status', async () => {
      const at = (minute: number) => `2026-12-03T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await store.createFlow(oauthFlow({ id: 't0', created_at: at(0) }));
      await store.createFlow(oauthFlow({ id: 't1', created_at: at(1), status: 'completed' }));
      await store.createFlow(oauthFlow({ id: 't2', created_at: at(2), status: 'failed' }));
      await store.createFlow(oauthFlow({ id: 't5', created_at: at(5) }));
      expect(await store.trimFlows(at(5))).toBe(3);
      expect(await store.getFlow('t0')).toBeUndefined();
      expect(await store.getFlow('t5')).toBeDefined();
      expect(await store.trimFlows(at(5))).toBe(0);
    });

    it('runs one refresh of a server at a time, and other servers’ beside it', async () => {
      // Ordered by gates, not by sleeps: fs1 holds the lock until gh1 has run start to end.
      const log: string[] = [];
      const fs1Holding = gate();
      const fs1Release = gate();
      const fs1 = store.withRefreshLock('fs', async () => {
        log.push('fs1 start');
        fs1Holding.open();
        await fs1Release.opened;
        log.push('fs1 end');
        return 'fs1';
      });
      const fs2 = store.withRefreshLock('fs', async () => {
        log.push('fs2 start');
        return 'fs2';
      });
      await fs1Holding.opened;
      const gh1 = await store.withRefreshLock('gh', async () => {
        log.push('gh1');
        return 'gh1';
      });
      expect(gh1).toBe('gh1');
      expect(log).toEqual(['fs1 start', 'gh1']);
      fs1Release.open();
      expect(await Promise.all([fs1, fs2])).toEqual(['fs1', 'fs2']);
      expect(log).toEqual(['fs1 start', 'gh1', 'fs1 end', 'fs2 start']);
    });

    it('releases the refresh lock when the body throws', async () => {
      const failNow = gate();
      const failing = store.withRefreshLock('fs', async () => {
        await failNow.opened;
        throw new Error('the token endpoint answered 500');
      });
      const next = store.withRefreshLock('fs', async () => 'refreshed');
      failNow.open();
      await expect(failing).rejects.toThrow('the token endpoint answered 500');
      expect(await next).toBe('refreshed');
      // A body that throws before its first await, too.
      await expect(
        store.withRefreshLock('fs', () => {
          throw new Error('at once');
        }),
      ).rejects.toThrow('at once');
      expect(await store.withRefreshLock('fs', async () => 1)).toBe(1);
    });

    it('lets the refresh body use the store', async () => {
      await store.put('fs', { server_url: 'https://fs.example.com/mcp' });
      const refreshes = Array.from({ length: 6 }, (_, i) =>
        store.withRefreshLock(i % 2 ? 'fs' : `s${i}`, async () => {
          await store.get('fs');
          if (i % 2) await store.put('fs', { tokens_sealed: `v1.t${i}` });
          return i;
        }),
      );
      expect(await Promise.all(refreshes)).toEqual([0, 1, 2, 3, 4, 5]);
      expect((await store.get('fs'))?.tokens_sealed).toBe('v1.t5');
    });

    it('does not tell an instance about its own writes', async () => {
      const heard: string[] = [];
      const stop = store.onChange((server) => heard.push(server));
      await store.put('fs', { server_url: 'https://fs.example.com/mcp' });
      await store.createFlow(oauthFlow({ id: 'f1' }));
      await store.claimFlow(oauthFlow({ id: 'f1' }).state_sha256, NOW);
      await store.finishFlow('f1', 'completed', null, NOW);
      await store.delete('fs');
      // Notices arrive in commit order: once another instance's later write is heard, a notice
      // of this instance's own writes would have been heard before it.
      const twin = await opened.twin();
      await twin.put('barrier', { server_url: 'https://barrier.example.com/mcp' });
      await vi.waitFor(() => expect(heard).toContain('barrier'), { timeout: 10_000 });
      stop();
      expect(heard).toEqual(['barrier']);
    });
  });
}
