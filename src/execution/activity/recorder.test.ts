import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { activityRecord } from '../../store/activity-store.contract.ts';
import { openStore, type Store } from '../../store/index.ts';
import { createLogger } from '../../util/logger.ts';
import { ACTIVITY_VALUE_MAX_BYTES, cutForActivity } from './cut.ts';
import { ACTIVITY_MAX_QUEUED_RECORDS, ActivityRecorder } from './recorder.ts';

const logger = createLogger('silent');
let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function open(retention = { days: 30, maxRecords: 100_000 }) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-recorder-'));
  store = openStore(dir);
  return { store, recorder: new ActivityRecorder(store.activity, logger, () => retention) };
}

describe('ActivityRecorder', () => {
  it('writes in batches off the caller and tells subscribers once written', async () => {
    const { store, recorder } = open();
    const seen: string[] = [];
    recorder.subscribe((r) => seen.push(r.id));
    recorder.record([activityRecord({ id: 'a1' }), activityRecord({ id: 'a2', parent_id: 'a1' })]);
    // Nothing is written synchronously.
    expect((await store.activity.list({ limit: 10, offset: 0 })).total).toBe(0);
    await recorder.flush();
    expect((await store.activity.list({ limit: 10, offset: 0 })).total).toBe(2);
    expect(seen).toEqual(['a1', 'a2']);
    expect(recorder.stats).toMatchObject({ queued: 0, written: 2, dropped: 0 });
    await recorder.stop();
  });

  it('flushes by itself within a moment', async () => {
    const { store, recorder } = open();
    recorder.record([activityRecord({ id: 'b1' })]);
    await expect
      .poll(async () => (await store.activity.list({ limit: 10, offset: 0 })).total, {
        timeout: 10_000,
      })
      .toBe(1);
    await recorder.stop();
  });

  it('loses nothing queued when stopped, and counts what a full queue drops', async () => {
    const { store, recorder } = open();
    const many = Array.from({ length: ACTIVITY_MAX_QUEUED_RECORDS + 7 }, (_, i) =>
      activityRecord({ id: `c${String(i).padStart(6, '0')}` }),
    );
    recorder.record(many);
    expect(recorder.stats.dropped).toBe(7);
    await recorder.stop();
    expect((await store.activity.list({ limit: 1, offset: 0 })).total).toBe(
      ACTIVITY_MAX_QUEUED_RECORDS,
    );
    recorder.record([activityRecord({ id: 'late' })]);
    expect(recorder.stats.queued).toBe(0);
  });

  it('trims by retention when started', async () => {
    const { store, recorder } = open({ days: 1, maxRecords: 2 });
    await store.activity.insert([
      activityRecord({ id: 'd1', started_at: '2020-01-01T00:00:00.000Z' }),
      ...['d2', 'd3', 'd4'].map((id) =>
        activityRecord({ id, started_at: new Date().toISOString() }),
      ),
    ]);
    recorder.start();
    await expect
      .poll(async () =>
        (await store.activity.list({ limit: 10, offset: 0 })).items.map((r) => r.id),
      )
      .toEqual(['d4', 'd3']);
    await recorder.stop();
  });
});

describe('cutForActivity', () => {
  it('keeps small values and cuts large ones with a marker', () => {
    expect(cutForActivity({ a: 1 })).toEqual({ a: 1 });
    expect(cutForActivity(undefined)).toBeNull();
    const cut = cutForActivity({ text: 'é'.repeat(10_000) }) as string;
    expect(typeof cut).toBe('string');
    expect(Buffer.byteLength(cut)).toBeLessThan(ACTIVITY_VALUE_MAX_BYTES + 100);
    expect(cut).toMatch(/…\[cut: 20011 bytes of JSON, first 8192 kept\]$/);
    expect(cut).not.toContain('\uFFFD');
  });
});
