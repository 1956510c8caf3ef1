/** @module The approval store's contract suite: every implementation (memory, SQLite, PostgreSQL) runs it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord, ApprovalStore, HeldRunRecord } from './approval-store.ts';

export interface OpenedApprovals {
  approvals: ApprovalStore;
  /** Closes the store and removes what the test created. */
  dispose(): Promise<void>;
}

/** A pending approval with every field set; `over` replaces some. */
export function approvalRecord(over: Partial<ApprovalRecord> & { id: string }): ApprovalRecord {
  return {
    status: 'pending',
    server: 'fs',
    tool: 'delete_file',
    args: { path: '/tmp/é.txt', recursive: true, depth: [1, { n: null }] },
    args_truncated: false,
    args_cut_keys: [],
    args_sha256: 'a'.repeat(64),
    reason: 'annotated destructive',
    caller: 'token:ci',
    activity_id: '019a00000000000000000001',
    code: "await tools.fs.delete_file({ path: '/tmp/é.txt' })",
    created_at: '2026-12-03T10:00:00.000Z',
    expires_at: '2026-12-03T10:02:00.000Z',
    decided_by: null,
    decided_at: null,
    instance_id: 'gw-1',
    ...over,
  };
}

const DECIDED_AT = '2026-12-03T10:00:30.000Z';

export function approvalStoreContract(label: string, open: () => Promise<OpenedApprovals>): void {
  describe(`approval store contract: ${label}`, () => {
    let opened: OpenedApprovals;
    let store: ApprovalStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.approvals;
    });
    afterEach(async () => {
      await opened.dispose();
    });

    it('keeps every field of an approval as written', async () => {
      const whole = approvalRecord({ id: '01' });
      // Nulls where the history is off, and arguments cut to a string with a marker.
      const sparse = approvalRecord({
        id: '02',
        activity_id: null,
        code: null,
        args: '{"path": "/very/long…[cut: 9000 bytes]',
        reason: 'rule 3',
        caller: 'admin',
      });
      await store.create(whole);
      await store.create(sparse);
      expect(await store.get('01')).toEqual(whole);
      expect(await store.get('02')).toEqual(sparse);
      expect(await store.get('nope')).toBeUndefined();
      expect(await store.list({ limit: 10 })).toEqual([sparse, whole]);
    });

    it('keeps the whole arguments of a cut approval only, for getArgs', async () => {
      const whole = `{"path":"/tmp/x","content":"${'x'.repeat(70_000)}"}`;
      const cut = approvalRecord({
        id: '05',
        args: { path: '/tmp/x' },
        args_truncated: true,
        args_cut_keys: ['content'],
      });
      await store.create(cut, whole);
      // Whole arguments offered with an approval that was not cut are not kept.
      await store.create(approvalRecord({ id: '06' }), '{"path":"/tmp/é.txt"}');
      await store.create(approvalRecord({ id: '07' }));
      expect(await store.getArgs('05')).toBe(whole);
      expect(await store.getArgs('06')).toBeNull();
      expect(await store.getArgs('07')).toBeNull();
      expect(await store.getArgs('nope')).toBeUndefined();
      expect(await store.get('05')).toEqual(cut);
    });

    it('hands out copies: changing what was written or read changes nothing kept', async () => {
      const written = approvalRecord({ id: '08' });
      await store.create(written);
      (written.args as { path: string }).path = '/changed';
      written.args_cut_keys.push('changed');
      const read = await store.get('08');
      (read?.args as { path: string }).path = '/changed again';
      const [listed] = await store.list({ limit: 1 });
      (listed?.args as { path: string }).path = '/changed again';
      expect(await store.get('08')).toEqual(approvalRecord({ id: '08' }));
      const run: HeldRunRecord = {
        id: 'run-8',
        caller: 'admin',
        instance_id: 'gw-1',
        state: 'done',
        approval_id: null,
        result: { content: [{ type: 'text', text: 'kept' }] },
        updated_at: '2026-12-03T10:00:00.000Z',
        expires_at: '2026-12-03T10:10:00.000Z',
      };
      await store.putRun(run);
      (run.result as { content: unknown[] }).content.push('changed');
      expect(await store.getRun('run-8')).toMatchObject({
        result: { content: [{ type: 'text', text: 'kept' }] },
      });
    });

    it('lists newest first, by status, at most the limit', async () => {
      // Written out of order: the id (sortable by time) orders the list, not the insert.
      for (const id of ['0a3', '0a1', '0a5', '0a2', '0a4', '0a0'])
        await store.create(approvalRecord({ id }));
      await store.decide('0a1', 'approved', 'admin', DECIDED_AT);
      await store.decide('0a4', 'denied', 'elicitation', DECIDED_AT);
      await store.decide('0a2', 'expired', 'timeout', DECIDED_AT);
      const ids = async (query: Parameters<ApprovalStore['list']>[0]) =>
        (await store.list(query)).map((a) => a.id);
      const cases: Array<[Parameters<ApprovalStore['list']>[0], string[]]> = [
        [{ limit: 50 }, ['0a5', '0a4', '0a3', '0a2', '0a1', '0a0']],
        [{ limit: 2 }, ['0a5', '0a4']],
        [{ status: 'pending', limit: 50 }, ['0a5', '0a3', '0a0']],
        [{ status: 'pending', limit: 2 }, ['0a5', '0a3']],
        [{ status: 'approved', limit: 50 }, ['0a1']],
        [{ status: 'denied', limit: 50 }, ['0a4']],
        [{ status: 'expired', limit: 50 }, ['0a2']],
      ];
      for (const [query, expected] of cases)
        expect(await ids(query), JSON.stringify(query)).toEqual(expected);
    });

    it('takes the first decision only; a later one is answered already, changing nothing', async () => {
      const pending = approvalRecord({ id: '10' });
      await store.create(pending);
      const decided = {
        ...pending,
        status: 'approved',
        decided_by: 'admin',
        decided_at: DECIDED_AT,
      };
      expect(await store.decide('10', 'approved', 'admin', DECIDED_AT)).toEqual({
        outcome: 'decided',
        approval: decided,
      });
      expect(await store.decide('10', 'denied', 'elicitation', '2026-12-03T10:00:31.000Z')).toEqual(
        { outcome: 'already', approval: decided },
      );
      expect(await store.get('10')).toEqual(decided);
      expect(await store.decide('nope', 'denied', 'admin', DECIDED_AT)).toEqual({
        outcome: 'missing',
      });
    });

    it('expires a pending approval like a decision, and then refuses one', async () => {
      await store.create(approvalRecord({ id: '20' }));
      const outcome = await store.decide('20', 'expired', 'request cancelled', DECIDED_AT);
      expect(outcome).toMatchObject({
        outcome: 'decided',
        approval: { status: 'expired', decided_by: 'request cancelled', decided_at: DECIDED_AT },
      });
      const late = await store.decide('20', 'approved', 'admin', '2026-12-03T10:05:00.000Z');
      expect(late).toMatchObject({
        outcome: 'already',
        approval: { status: 'expired', decided_by: 'request cancelled' },
      });
    });

    it('trims decided approvals made before the instant, keeping pending ones', async () => {
      const at = (minute: number) => `2026-12-03T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await store.create(approvalRecord({ id: '30', created_at: at(0) }));
      await store.create(approvalRecord({ id: '31', created_at: at(1) }));
      await store.create(approvalRecord({ id: '32', created_at: at(2) }));
      await store.create(approvalRecord({ id: '33', created_at: at(3) }));
      await store.create(approvalRecord({ id: '34', created_at: at(9) }));
      await store.decide('31', 'approved', 'admin', DECIDED_AT);
      await store.decide('32', 'denied', 'admin', DECIDED_AT);
      await store.decide('33', 'expired', 'timeout', DECIDED_AT);
      await store.decide('34', 'approved', 'admin', DECIDED_AT);
      expect(await store.trim(at(5))).toBe(3);
      // The old pending one stays (its call may still be held); the recent decided one stays.
      expect((await store.list({ limit: 50 })).map((a) => a.id)).toEqual(['34', '30']);
      expect(await store.trim(at(5))).toBe(0);
    });

    it('does not tell an instance about its own writes', async () => {
      const heard: string[] = [];
      const stop = store.onChange((id) => heard.push(id));
      await store.create(approvalRecord({ id: '40' }));
      await store.decide('40', 'approved', 'admin', DECIDED_AT);
      await new Promise((resolve) => setTimeout(resolve, 200));
      stop();
      expect(heard).toEqual([]);
    });

    it('keeps a held run, replaces it as it moves on, and trims it once expired', async () => {
      const held: HeldRunRecord = {
        id: 'run-1',
        caller: 'token:ci',
        instance_id: 'gw-1',
        state: 'held',
        approval_id: '50',
        result: null,
        updated_at: '2026-12-03T10:00:00.000Z',
        expires_at: '2026-12-03T10:10:00.000Z',
      };
      await store.putRun(held);
      expect(await store.getRun('run-1')).toEqual(held);
      const done: HeldRunRecord = {
        ...held,
        state: 'done',
        approval_id: null,
        result: { content: [{ type: 'text', text: 'é' }], structuredContent: { ok: true } },
        updated_at: '2026-12-03T10:01:00.000Z',
      };
      await store.putRun(done);
      expect(await store.getRun('run-1')).toEqual(done);
      expect(await store.getRun('run-2')).toBeUndefined();
      expect(await store.trimRuns('2026-12-03T10:09:59.000Z')).toBe(0);
      expect(await store.trimRuns('2026-12-03T10:10:00.001Z')).toBe(1);
      expect(await store.getRun('run-1')).toBeUndefined();
    });
  });
}
