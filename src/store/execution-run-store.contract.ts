/** @module The execution run store's contract suite: every implementation (memory, SQLite, PostgreSQL) runs it. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionRunStore, ExecutionRunWrite } from './execution-run-store.ts';

export interface OpenedExecutionRuns {
  runs: ExecutionRunStore;
  /** Closes the store and removes what the test created. */
  dispose(): Promise<void>;
}

const at = (minute: number) => `2026-12-06T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A running run with every field set; `over` replaces some. */
export function executionRun(over: Partial<ExecutionRunWrite> & { id: string }): ExecutionRunWrite {
  return {
    owner: 'token:ci',
    kind: 'code_execution',
    tool: null,
    instance_id: 'gw-1',
    status: 'running',
    started_at: at(0),
    snapshot: {
      waiting_for: [{ approval_id: 'a1', server: 'fs', tool: 'delete_file' }],
      logs: ['é', 'two'],
      tool_calls: [],
      elapsed_ms: 1200,
    },
    answer: null,
    updated_at: at(0),
    expires_at: at(10),
    ...over,
  };
}

export function executionRunStoreContract(
  label: string,
  open: () => Promise<OpenedExecutionRuns>,
): void {
  describe(`execution run store contract: ${label}`, () => {
    let opened: OpenedExecutionRuns;
    let store: ExecutionRunStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.runs;
    });
    afterEach(async () => {
      await opened.dispose();
    });

    it('keeps every field of a run as written, and replaces it as it moves on', async () => {
      const running = executionRun({ id: '01', kind: 'code_tool', tool: 'digest' });
      await store.put(running);
      expect(await store.get('01')).toEqual({ ...running, cancel_requested_by: null });
      const done = executionRun({
        id: '01',
        kind: 'code_tool',
        tool: 'digest',
        status: 'done',
        answer: { thrown: { code: -32602, message: 'bad', data: { field: 'x' } } },
        updated_at: at(2),
        expires_at: at(62),
      });
      await store.put(done);
      expect(await store.get('01')).toEqual({ ...done, cancel_requested_by: null });
      expect(await store.get('nope')).toBeUndefined();
    });

    it('hands out copies: changing what was written or read changes nothing kept', async () => {
      const written = executionRun({ id: '02' });
      await store.put(written);
      (written.snapshot as { logs: string[] }).logs.push('changed');
      const read = await store.get('02');
      (read!.snapshot as { logs: string[] }).logs.push('changed again');
      expect((await store.get('02'))?.snapshot).toEqual(executionRun({ id: '02' }).snapshot);
    });

    it('lists unexpired runs newest first, one owner’s when asked, at most the limit', async () => {
      await store.put(executionRun({ id: '0a1' }));
      await store.put(executionRun({ id: '0a3', owner: 'admin' }));
      await store.put(executionRun({ id: '0a2', expires_at: at(4) }));
      await store.put(executionRun({ id: '0a4', status: 'done', answer: { result: 1 } }));
      const ids = async (query: Parameters<ExecutionRunStore['list']>[0]) =>
        (await store.list(query)).map((r) => r.id);
      expect(await ids({ now: at(3), limit: 10 })).toEqual(['0a4', '0a3', '0a2', '0a1']);
      expect(await ids({ now: at(5), limit: 10 })).toEqual(['0a4', '0a3', '0a1']);
      expect(await ids({ now: at(3), limit: 2 })).toEqual(['0a4', '0a3']);
      expect(await ids({ now: at(3), owner: 'token:ci', limit: 10 })).toEqual([
        '0a4',
        '0a2',
        '0a1',
      ]);
      expect(await ids({ now: at(3), owner: 'token:other', limit: 10 })).toEqual([]);
    });

    it('takes a cancel request of a running run only, keeps the first, and the owner’s writes keep it', async () => {
      await store.put(executionRun({ id: '10' }));
      await store.put(executionRun({ id: '11', instance_id: 'gw-2' }));
      await store.put(executionRun({ id: '12', status: 'done', answer: { result: 2 } }));
      await store.put(executionRun({ id: '13', expires_at: at(1) }));
      expect(await store.cancelRequests('gw-1')).toEqual([]);
      expect(await store.requestCancel('10', 'cancelled by token:ci', at(2))).toBe(true);
      expect(await store.requestCancel('10', 'cancelled by admin', at(2))).toBe(true);
      expect(await store.requestCancel('11', 'cancelled by admin', at(2))).toBe(true);
      // Done, expired or unknown: nothing to cancel.
      expect(await store.requestCancel('12', 'cancelled by admin', at(2))).toBe(false);
      expect(await store.requestCancel('13', 'cancelled by admin', at(2))).toBe(false);
      expect(await store.requestCancel('nope', 'cancelled by admin', at(2))).toBe(false);
      expect(await store.cancelRequests('gw-1')).toEqual([
        { id: '10', by: 'cancelled by token:ci' },
      ]);
      expect(await store.cancelRequests('gw-2')).toEqual([{ id: '11', by: 'cancelled by admin' }]);
      // A snapshot written after the request does not erase it.
      await store.put(executionRun({ id: '10', updated_at: at(3), snapshot: { logs: ['later'] } }));
      expect((await store.get('10'))?.cancel_requested_by).toBe('cancelled by token:ci');
      // Once the run is done, its owner has nothing more to act on.
      await store.put(executionRun({ id: '10', status: 'done', answer: { result: 'x' } }));
      expect(await store.cancelRequests('gw-1')).toEqual([]);
    });

    it('trims runs that expired before the instant', async () => {
      await store.put(executionRun({ id: '20', expires_at: at(5) }));
      await store.put(executionRun({ id: '21', expires_at: at(9) }));
      expect(await store.trim(at(5))).toBe(0);
      expect(await store.trim(at(6))).toBe(1);
      expect(await store.get('20')).toBeUndefined();
      expect(await store.get('21')).toBeDefined();
    });

    it('does not tell an instance about its own writes', async () => {
      const heard: string[] = [];
      const stop = store.onChange((id) => heard.push(id));
      await store.put(executionRun({ id: '30' }));
      await store.requestCancel('30', 'cancelled by admin', at(1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      stop();
      expect(heard).toEqual([]);
    });
  });
}
