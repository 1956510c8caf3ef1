/** @module The token store's contract suite: every implementation (SQLite, PostgreSQL) runs it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenStore } from './token-store.ts';

export interface OpenedTokenStore {
  tokens: TokenStore;
  /** Closes the store and removes what the test created. */
  dispose(): Promise<void>;
}

export function tokenStoreContract(name: string, open: () => Promise<OpenedTokenStore>): void {
  describe(`token store contract: ${name}`, () => {
    let opened: OpenedTokenStore;
    let store: TokenStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.tokens;
    });
    afterEach(async () => {
      await opened.dispose();
    });

    it('creates a token whose secret verifies to its record, once', async () => {
      const { token, record } = await store.create('ci', ['github'], ['fmt']);
      expect(token).toMatch(/^cmx_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({ name: 'ci', servers: ['github'], code_tools: ['fmt'] });
      expect(store.verify(token)).toMatchObject({ name: 'ci', servers: ['github'] });
      const listed = await store.list();
      expect(listed.map((t) => t.name)).toEqual(['ci']);
      expect(JSON.stringify(listed)).not.toContain(token);
    });

    it.each([
      ['a secret of another shape', 'not-a-token'],
      ['an unknown secret', `cmx_${'A'.repeat(43)}`],
      ['an empty secret', ''],
    ])('refuses %s', async (_why, secret) => {
      await store.create('ci', ['github']);
      expect(store.verify(secret)).toBeUndefined();
    });

    it('refuses a revoked token on the next verify and says whether it existed', async () => {
      const { token } = await store.create('ci', ['github']);
      expect(await store.revoke('ci')).toBe(true);
      expect(store.verify(token)).toBeUndefined();
      expect(await store.revoke('ci')).toBe(false);
      expect(await store.list()).toEqual([]);
    });

    it.each([
      ['a name with a space', 'a b', ['github'], [], 'INVALID_TOKEN_NAME'],
      ['a name of 65 characters', 'x'.repeat(65), ['github'], [], 'INVALID_TOKEN_NAME'],
      ['no server nor code tool', 'ci', [], [], 'INVALID_TOKEN_SERVERS'],
    ])('refuses %s', async (_why, name, servers, codeTools, code) => {
      await expect(store.create(name, servers, codeTools)).rejects.toMatchObject({ code });
    });

    it('refuses a second token of the same name', async () => {
      await store.create('ci', ['github']);
      await expect(store.create('ci', ['other'])).rejects.toMatchObject({ code: 'TOKEN_EXISTS' });
    });

    it('lists tokens by name with their scopes', async () => {
      await store.create('zeta', ['b']);
      await store.create('alpha', [], ['fmt']);
      const listed = await store.list();
      expect(listed.map((t) => [t.name, t.servers, t.code_tools])).toEqual([
        ['alpha', [], ['fmt']],
        ['zeta', ['b'], []],
      ]);
    });
  });
}
