import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { EventBudget, MAX_TOTAL_STORED_EVENT_BYTES } from './event-budget.ts';
import {
  MAX_STORED_EVENT_BYTES,
  MAX_STORED_EVENTS,
  MemoryEventStore,
  STORED_EVENT_OVERHEAD_BYTES,
} from './event-store.ts';

const MIB = 1_048_576;
/** A log notification whose data is `bytes` long: what an upstream's log line becomes. */
const log = (bytes: number, tag = 0): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', logger: `l${tag}`, data: 'x'.repeat(bytes) },
});

async function replayed(store: MemoryEventStore, after: string): Promise<string[]> {
  const ids: string[] = [];
  await store.replayEventsAfter(after, { send: async (id) => void ids.push(id) });
  return ids;
}

describe('the event store of one session', () => {
  it('holds at most MAX_STORED_EVENT_BYTES of 1,000 events of 1 MiB, the newest', async () => {
    const budget = new EventBudget();
    const store = new MemoryEventStore(budget);
    const message = log(MIB);
    const ids: string[] = [await store.storeEvent('s', {} as JSONRPCMessage)];
    for (let i = 0; i < 1000; i++) ids.push(await store.storeEvent('s', message));
    const eventBytes = Buffer.byteLength(JSON.stringify(message)) + STORED_EVENT_OVERHEAD_BYTES;
    const kept = Math.floor(MAX_STORED_EVENT_BYTES / eventBytes);
    expect(store.bytes).toBeLessThanOrEqual(MAX_STORED_EVENT_BYTES);
    expect(store.bytes).toBe(kept * eventBytes);
    expect(store.size).toBe(kept);
    expect(budget.bytes).toBe(store.bytes);
    // The event just before the oldest kept one resumes: nothing after it is missing.
    expect(await replayed(store, ids[1000 - kept]!)).toEqual(ids.slice(1001 - kept));
    // 1,000 JSON texts of 1 MiB take seconds on a loaded machine; nothing here is timed.
  }, 300_000);

  it('refuses a resume that would miss dropped events, as the SDK contract says', async () => {
    const store = new MemoryEventStore(new EventBudget());
    const priming = await store.storeEvent('s', {} as JSONRPCMessage);
    for (let i = 0; i < 20; i++) await store.storeEvent('s', log(MIB));
    // getStreamIdForEventId's undefined makes the SDK answer the resume with an error.
    expect(await store.getStreamIdForEventId(priming)).toBeUndefined();
    await expect(replayed(store, priming)).rejects.toThrow('no longer stored');
  });

  it('sends an event larger than the budget without storing it; a resume from it works', async () => {
    const store = new MemoryEventStore(new EventBudget());
    const before = await store.storeEvent('s', log(10));
    const huge = await store.storeEvent('s', log(MAX_STORED_EVENT_BYTES));
    const after = await store.storeEvent('s', log(10));
    expect(store.size).toBe(2);
    expect(await store.getStreamIdForEventId(before)).toBeUndefined();
    expect(await store.getStreamIdForEventId(huge)).toBe('s');
    expect(await replayed(store, huge)).toEqual([after]);
  });

  it('replays only the stream asked for, in order, and keeps MAX_STORED_EVENTS at most', async () => {
    const store = new MemoryEventStore(new EventBudget());
    const first = await store.storeEvent('a', {} as JSONRPCMessage);
    const ids: string[] = [];
    for (let i = 0; i < MAX_STORED_EVENTS + 5; i++) {
      await store.storeEvent('b', log(1));
      ids.push(await store.storeEvent('a', log(1)));
    }
    expect(store.size).toBe(MAX_STORED_EVENTS);
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    const from = ids[ids.length - 4]!;
    expect(await replayed(store, from)).toEqual(ids.slice(-3));
  });

  it('answers undefined for an id it never gave out', async () => {
    const store = new MemoryEventStore(new EventBudget());
    await store.storeEvent('s', log(1));
    for (const id of ['s_99', 'other_1', 's_x', 'nounderscore', '_1'])
      expect(await store.getStreamIdForEventId(id)).toBeUndefined();
  });
});

describe('the event budget all sessions share', () => {
  it('holds the global bound across 20 full stores, dropping the oldest events first', async () => {
    const budget = new EventBudget();
    const stores = Array.from({ length: 20 }, () => new MemoryEventStore(budget));
    const message = log(MIB);
    for (const store of stores) for (let i = 0; i < 8; i++) await store.storeEvent('s', message);
    const held = stores.reduce((sum, store) => sum + store.bytes, 0);
    expect(budget.bytes).toBe(held);
    expect(held).toBeLessThanOrEqual(MAX_TOTAL_STORED_EVENT_BYTES);
    // The first stores' events are the oldest: they went; the last stores are full.
    expect(stores[0]!.size).toBe(0);
    expect(stores[19]!.bytes).toBeGreaterThan(MAX_STORED_EVENT_BYTES - 2 * MIB);
    expect(held).toBeGreaterThan(MAX_TOTAL_STORED_EVENT_BYTES - 2 * MIB);
  });

  it('gets a store’s bytes back when its session ends', async () => {
    const budget = new EventBudget();
    const ended = new MemoryEventStore(budget);
    const live = new MemoryEventStore(budget);
    await ended.storeEvent('s', log(1000));
    await live.storeEvent('s', log(1000));
    ended.clear();
    expect(ended.bytes).toBe(0);
    expect(budget.bytes).toBe(live.bytes);
  });
});
