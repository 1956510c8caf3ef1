import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { oauthStoreContract } from './oauth-store.contract.ts';
import { openStore, type Store } from './open-store.ts';

oauthStoreContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-oauth-'));
  const store = openStore(dir);
  const twins: Store[] = [];
  return {
    oauth: store.oauth,
    async twin() {
      twins.push(openStore(dir));
      return twins.at(-1)!.oauth;
    },
    async dispose() {
      for (const twin of twins) await twin.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite shared by two processes (two connections to one file)', () => {
  let dir: string;
  let one: Store;
  let two: Store;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-oauth-'));
    one = openStore(dir);
    two = openStore(dir);
  });
  afterEach(async () => {
    await one.close();
    await two.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the refresh lock holds across them, and is given back when its holder throws', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding!: () => void;
    const isHolding = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const first = one.oauth.withRefreshLock('gh', async () => {
      order.push('one in');
      holding();
      await held;
      order.push('one out');
    });
    await isHolding;
    const second = two.oauth.withRefreshLock('gh', async () => {
      order.push('two in');
    });
    // Two retries its lease every 50 ms; a few rounds of retrying must not let it in. A wait on
    // purpose: a refused retry leaves no trace to wait for, and the rounds are the thing tested.
    await new Promise((r) => setTimeout(r, 200));
    expect(order).toEqual(['one in']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['one in', 'one out', 'two in']);
    await expect(
      one.oauth.withRefreshLock('gh', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await two.oauth.withRefreshLock('gh', async () => 'free')).toBe('free');
  });

  it("hears the other's writes (a sign-in, a sign-out), not its own", async () => {
    const heard: string[] = [];
    const mine: string[] = [];
    const stop = one.oauth.onChange((server) => heard.push(server));
    const stopTwo = two.oauth.onChange((server) => mine.push(server));
    await two.oauth.put('gh', { server_url: 'https://x.example/mcp', tokens_sealed: 'v1.a.b' });
    await vi.waitFor(() => expect(heard).toEqual(['gh']), { timeout: 5000 });
    await two.oauth.put('gh', { tokens_sealed: null, reason: 'signed out' });
    await vi.waitFor(() => expect(heard).toEqual(['gh', 'gh']), { timeout: 5000 });
    // One's later write is a barrier: once two hears it, a notice of its own writes would have come.
    await one.oauth.put('barrier', { server_url: 'https://barrier.example/mcp' });
    await vi.waitFor(() => expect(mine).toContain('barrier'), { timeout: 5000 });
    expect(mine).toEqual(['barrier']);
    stop();
    stopTwo();
  });
});
