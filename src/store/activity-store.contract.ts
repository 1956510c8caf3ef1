/** @module The activity store's contract suite: every implementation (SQLite, PostgreSQL, memory) runs it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseIsoInstant } from '../util/iso-instant.ts';
import type { ActivityQuery, ActivityRecord, ActivityStore } from './activity-store.ts';

export interface OpenedStore {
  activity: ActivityStore;
  /** Closes the store and removes what the test created. */
  dispose(): Promise<void>;
}

let seq = 0;
/** A record with every field set; `over` replaces some. */
export function activityRecord(over: Partial<ActivityRecord> & { id: string }): ActivityRecord & {
  seq: number;
} {
  return {
    parent_id: null,
    kind: 'execution',
    surface: 'rest',
    caller: 'admin',
    server: null,
    tool: null,
    script: null,
    language: 'javascript',
    code: '1 + 1',
    input: { a: 1 },
    args: null,
    status: 'success',
    error: null,
    started_at: '2026-12-01T10:00:00.000Z',
    duration_ms: 1.5,
    logs: [],
    response: { ok: true, value: 2 },
    instance_id: 'test',
    approval_id: null,
    ...over,
    seq: seq++,
  };
}

export function activityStoreContract(name: string, open: () => Promise<OpenedStore>): void {
  describe(`activity store contract: ${name}`, () => {
    let opened: OpenedStore;
    let store: ActivityStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.activity;
    });
    afterEach(async () => {
      await opened.dispose();
    });

    it('keeps every field of a record as written', async () => {
      const record = activityRecord({
        id: '01',
        logs: ['a', 'b'],
        error: { code: 'TIMEOUT', message: 'JavaScript execution timed out' },
        status: 'error',
        input: { nested: [1, { x: 'é' }] },
        response: 'cut…[cut: 9000 bytes]',
      });
      await store.insert([record]);
      const { seq: _seq, ...expected } = record;
      expect(await store.get('01')).toEqual(expected);
      expect(await store.get('nope')).toBeUndefined();
    });

    it('lists children in the order they were made, not by id', async () => {
      await store.insert([
        activityRecord({ id: '10' }),
        activityRecord({ id: '13', parent_id: '10', kind: 'tool_call', server: 's', tool: 'a' }),
        activityRecord({ id: '12', parent_id: '10', kind: 'tool_call', server: 's', tool: 'b' }),
      ]);
      expect((await store.children('10')).map((r) => r.tool)).toEqual(['a', 'b']);
    });

    it('lists newest first with filters, paging and the total', async () => {
      const rows = Array.from({ length: 12 }, (_, i) =>
        activityRecord({
          id: `2${i.toString(16)}`,
          status: i % 3 === 0 ? 'tool_error' : 'success',
          kind: i % 2 === 0 ? 'execution' : 'tool_call',
          server: i % 2 === 0 ? null : 'everything',
          parent_id: i % 2 === 0 ? null : '20',
          started_at: `2026-12-01T10:00:${String(i).padStart(2, '0')}.000Z`,
        }),
      );
      await store.insert(rows);
      const page = await store.list({ limit: 5, offset: 0 });
      expect(page.total).toBe(12);
      expect(page.items.map((r) => r.id)).toEqual(['2b', '2a', '29', '28', '27']);
      const next = await store.list({ limit: 5, offset: 10 });
      expect(next.items.map((r) => r.id)).toEqual(['21', '20']);
      const cases: Array<[Partial<ActivityQuery>, number]> = [
        [{ status: 'tool_error' }, 4],
        [{ kind: 'tool_call' }, 6],
        [{ server: 'everything' }, 6],
        [{ parent_id: '20' }, 6],
        [{ sinceMs: Date.parse('2026-12-01T10:00:10.000Z') }, 2],
        [{ sinceMs: Date.parse('2026-12-01T10:00:09.999Z') }, 2],
        [{ sinceMs: Date.parse('2026-12-01T10:00:09.000Z') }, 3],
        [{ sinceMs: Date.parse('2026-12-01T10:00:10.001Z') }, 1],
        [{ kind: 'tool_call', status: 'tool_error' }, 2],
      ];
      for (const [filter, total] of cases) {
        const result = await store.list({ limit: 50, offset: 0, ...filter });
        expect(result.total, JSON.stringify(filter)).toBe(total);
        expect(result.items).toHaveLength(total);
      }
    });

    it('filters by caller, surface, tool, a time range and text in the code, input or arguments', async () => {
      await store.insert([
        activityRecord({
          id: '70',
          caller: 'token:ci',
          surface: 'mcp',
          code: "call_tool('Files', 'read', {path: '/etc/Hosts'})",
          started_at: '2026-12-02T08:00:00.000Z',
        }),
        activityRecord({
          id: '71',
          parent_id: '70',
          kind: 'tool_call',
          caller: 'token:ci',
          surface: 'mcp',
          server: 'files',
          tool: 'read',
          code: null,
          input: null,
          args: { path: '/etc/hosts' },
          started_at: '2026-12-02T08:00:00.500Z',
        }),
        activityRecord({
          id: '72',
          surface: 'ui',
          code: 'return 100%_done',
          input: { note: 'C:\\temp' },
          started_at: '2026-12-03T09:00:00.000Z',
        }),
      ]);
      const ids = async (filter: Partial<ActivityQuery>) =>
        (await store.list({ limit: 50, offset: 0, ...filter })).items.map((r) => r.id).sort();
      expect(await ids({ caller: 'token:ci' })).toEqual(['70', '71']);
      expect(await ids({ surface: 'ui' })).toEqual(['72']);
      expect(await ids({ tool: 'read' })).toEqual(['71']);
      expect(
        await ids({
          sinceMs: Date.parse('2026-12-02T08:00:00.000Z'),
          untilMs: Date.parse('2026-12-02T08:00:00.500Z'),
        }),
      ).toEqual(['70']);
      expect(await ids({ untilMs: Date.parse('0001-01-01T00:00:00.000Z') })).toEqual([]);
      // Case-insensitive, in code and in arguments; %, _ and \ are only text.
      expect(await ids({ search: 'ETC/HOSTS' })).toEqual(['70', '71']);
      expect(await ids({ search: '100%_d' })).toEqual(['72']);
      expect(await ids({ search: '%' })).toEqual(['72']);
      expect(await ids({ search: '1_0' })).toEqual([]);
      expect(await ids({ search: 'c:\\\\temp' })).toEqual(['72']);
      expect(await ids({ search: 'nowhere' })).toEqual([]);
      expect(await ids({ search: 'hosts', kind: 'tool_call' })).toEqual(['71']);
    });

    it('keeps the dry-run mark, present only on dry runs', async () => {
      await store.insert([
        activityRecord({ id: '80', surface: 'ui', dry_run: true }),
        activityRecord({ id: '81', parent_id: '80', kind: 'tool_call', dry_run: true }),
        activityRecord({ id: '82' }),
      ]);
      expect((await store.get('80'))?.dry_run).toBe(true);
      expect((await store.children('80')).map((r) => r.dry_run)).toEqual([true]);
      expect(await store.get('82')).not.toHaveProperty('dry_run');
    });

    it('compares since as time, for any year', async () => {
      await store.insert([
        activityRecord({ id: '50', started_at: '0001-01-01T00:00:00.000Z' }),
        activityRecord({ id: '51', started_at: '2026-12-01T10:00:00.000Z' }),
        activityRecord({ id: '52', started_at: '9999-12-31T23:59:59.999Z' }),
      ]);
      const since = async (text: string) =>
        (await store.list({ limit: 50, offset: 0, sinceMs: parseIsoInstant(text)! })).items
          .map((r) => r.id)
          .reverse();
      // Expanded years: as text, "+099999" and "99999" sort before "2026"; as time they are later.
      expect(await since('99999-01-01')).toEqual([]);
      expect(await since('+010000-01-01T00:00:00Z')).toEqual([]);
      expect(await since('9999-12-31T23:59:59.999Z')).toEqual(['52']);
      expect(await since('2026-12-01T11:00:00+01:00')).toEqual(['51', '52']);
      expect(await since('2026-12-01T10:00:00.0001Z')).toEqual(['52']);
      expect(await since('0001-01-01')).toEqual(['50', '51', '52']);
      expect(await since('-000044-03-15')).toEqual(['50', '51', '52']);
    });

    it('trims by age, then the oldest beyond the record cap', async () => {
      await store.insert(
        Array.from({ length: 10 }, (_, i) =>
          activityRecord({
            id: `3${i}`,
            started_at: `2026-11-${String(10 + i).padStart(2, '0')}T00:00:00.000Z`,
          }),
        ),
      );
      expect(await store.trim('2026-11-13T00:00:00.000Z', 1000)).toBe(3);
      expect(await store.trim('2000-01-01T00:00:00.000Z', 4)).toBe(3);
      const left = await store.list({ limit: 50, offset: 0 });
      expect(left.items.map((r) => r.id)).toEqual(['39', '38', '37', '36']);
    });

    it('keeps the approval that let a call go out, and null for a record without one', async () => {
      const { approval_id: _none, ...older } = activityRecord({ id: '60' });
      await store.insert([
        older,
        activityRecord({ id: '61', parent_id: '60', kind: 'tool_call', server: 's', tool: 'rm' }),
        activityRecord({
          id: '62',
          parent_id: '60',
          kind: 'tool_call',
          server: 's',
          tool: 'rm',
          approval_id: '019a0000000000000000abcd',
        }),
      ]);
      // A builder that leaves the field out (as before approvals) reads back null.
      expect((await store.get('60'))?.approval_id).toBeNull();
      expect((await store.get('62'))?.approval_id).toBe('019a0000000000000000abcd');
      expect((await store.children('60')).map((r) => r.approval_id)).toEqual([
        null,
        '019a0000000000000000abcd',
      ]);
      const listed = (await store.list({ limit: 50, offset: 0 })).items;
      expect(listed.map((r) => [r.id, r.approval_id])).toEqual([
        ['62', '019a0000000000000000abcd'],
        ['61', null],
        ['60', null],
      ]);
    });

    it('ignores a record written twice', async () => {
      const record = activityRecord({ id: '40' });
      await store.insert([record]);
      await store.insert([record]);
      expect((await store.list({ limit: 50, offset: 0 })).total).toBe(1);
    });
    it("keeps a call's offset on its execution's time axis, absent where none was kept", async () => {
      await store.insert([
        activityRecord({ id: '90' }),
        activityRecord({ id: '91', parent_id: '90', kind: 'tool_call', offset_ms: 12.34 }),
        activityRecord({ id: '92', parent_id: '90', kind: 'tool_call' }),
      ]);
      const [timed, untimed] = await store.children('90');
      expect(timed?.offset_ms).toBe(12.34);
      expect(untimed).not.toHaveProperty('offset_ms');
      expect(await store.get('90')).not.toHaveProperty('offset_ms');
    });

    it('tallies the records of a window by hour, kind and status', async () => {
      const at = (time: string) => `2026-12-01T${time}.000Z`;
      await store.insert([
        activityRecord({ id: 'a0', started_at: at('09:59:59') }),
        activityRecord({ id: 'a1', started_at: at('10:00:00') }),
        activityRecord({ id: 'a2', started_at: at('10:30:00'), status: 'error' }),
        activityRecord({ id: 'a3', started_at: at('10:59:59') }),
        activityRecord({ id: 'a4', started_at: at('11:00:00'), status: 'blocked' }),
        ...['success', 'tool_error', 'tool_error'].map((status, i) =>
          activityRecord({
            id: `a5${i}`,
            parent_id: 'a4',
            kind: 'tool_call',
            server: 's',
            tool: 't',
            status: status as ActivityRecord['status'],
            started_at: at('11:10:00'),
          }),
        ),
        // A dry run counts as an execution; its stubbed calls were never sent.
        activityRecord({ id: 'a6', started_at: at('11:20:00'), dry_run: true }),
        activityRecord({
          id: 'a7',
          parent_id: 'a6',
          kind: 'tool_call',
          server: 's',
          tool: 't',
          started_at: at('11:20:00'),
          dry_run: true,
        }),
        activityRecord({ id: 'a8', started_at: at('12:00:00') }),
      ]);
      const { hours } = await store.overview({
        sinceMs: Date.parse(at('10:00:00')),
        untilMs: Date.parse(at('12:00:00')),
        failingLimit: 10,
      });
      expect(hours).toEqual([
        { hour: at('10:00:00'), kind: 'execution', status: 'error', count: 1 },
        { hour: at('10:00:00'), kind: 'execution', status: 'success', count: 2 },
        { hour: at('11:00:00'), kind: 'execution', status: 'blocked', count: 1 },
        { hour: at('11:00:00'), kind: 'execution', status: 'success', count: 1 },
        { hour: at('11:00:00'), kind: 'tool_call', status: 'success', count: 1 },
        { hour: at('11:00:00'), kind: 'tool_call', status: 'tool_error', count: 2 },
      ]);
    });

    it("gives each server's p50 and p95 call duration (nearest rank) over the calls let out", async () => {
      const call = (id: string, server: string, duration_ms: number, over = {}) =>
        activityRecord({
          id,
          parent_id: 'b0',
          kind: 'tool_call',
          server,
          tool: 't',
          duration_ms,
          ...over,
        });
      await store.insert([
        activityRecord({ id: 'b0' }),
        // fast: 1..20 ms, shuffled; p50 is the 10th, p95 the 19th.
        ...[7, 3, 20, 1, 15, 9, 12, 2, 18, 5, 11, 4, 19, 6, 14, 8, 17, 10, 16, 13].map((ms, i) =>
          call(`b1${String(i).padStart(2, '0')}`, 'fast', ms + 0.25),
        ),
        call('b20', 'slow', 900.5, { status: 'error' }),
        // Refused before dispatch, or a stub: not the server's time.
        call('b30', 'slow', 0, { status: 'blocked' }),
        call('b31', 'slow', 0, { status: 'rejected' }),
        call('b32', 'slow', 0, { dry_run: true }),
        call('b40', 'refused', 0, { status: 'blocked' }),
        call('b50', 'outside', 5, { started_at: '2026-12-02T10:00:00.000Z' }),
      ]);
      const { latency } = await store.overview({
        sinceMs: Date.parse('2026-12-01T00:00:00.000Z'),
        untilMs: Date.parse('2026-12-02T00:00:00.000Z'),
        failingLimit: 10,
      });
      expect(latency).toEqual([
        { server: 'fast', calls: 20, p50_ms: 10.25, p95_ms: 19.25 },
        { server: 'slow', calls: 1, p50_ms: 900.5, p95_ms: 900.5 },
      ]);
    });

    it('lists the most failing tools first, with their calls, at most the limit', async () => {
      const calls = (server: string, tool: string, statuses: ActivityRecord['status'][]) =>
        statuses.map((status, i) =>
          activityRecord({
            id: `c-${server}-${tool}-${i}`,
            parent_id: 'c0',
            kind: 'tool_call',
            server,
            tool,
            status,
          }),
        );
      await store.insert([
        activityRecord({ id: 'c0' }),
        ...calls('files', 'read', ['success', 'tool_error', 'success']),
        ...calls('files', 'write', ['error', 'tool_error', 'tool_error', 'success']),
        ...calls('git', 'log', ['tool_error']),
        ...calls('git', 'push', ['blocked', 'blocked']),
        ...calls('web', 'fetch', ['success']),
        ...calls('web', 'get', ['error']),
      ]);
      const window = {
        sinceMs: Date.parse('2026-12-01T00:00:00.000Z'),
        untilMs: Date.parse('2026-12-02T00:00:00.000Z'),
      };
      const { failing } = await store.overview({ ...window, failingLimit: 10 });
      expect(failing).toEqual([
        { server: 'files', tool: 'write', failures: 3, calls: 4 },
        { server: 'files', tool: 'read', failures: 1, calls: 3 },
        { server: 'git', tool: 'log', failures: 1, calls: 1 },
        { server: 'web', tool: 'get', failures: 1, calls: 1 },
      ]);
      const top = await store.overview({ ...window, failingLimit: 2 });
      expect(top.failing.map((t) => t.tool)).toEqual(['write', 'read']);
      const empty = await store.overview({ ...window, sinceMs: window.untilMs, failingLimit: 2 });
      expect(empty).toEqual({ hours: [], latency: [], failing: [] });
    });
  });
}
