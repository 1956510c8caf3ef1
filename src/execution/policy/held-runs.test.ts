import { describe, expect, it } from 'vitest';
import { approvalRecord } from '../../store/approval-store.contract.ts';
import { type ApprovalRecord, memoryApprovalStore } from '../../store/index.ts';
import { silentLogger } from '../../util/logger.ts';
import { HeldRuns } from './held-runs.ts';
import type { CallerChannel } from './types.ts';

const store = () => memoryApprovalStore();
const runsOn = (s: ReturnType<typeof store>, instance: string) =>
  new HeldRuns(
    s,
    () => instance,
    () => 60_000,
    silentLogger(),
  );

/** A program that asks `approvals` one after the other, then answers `result`. */
function asking(approvals: ApprovalRecord[], result: unknown) {
  const gates: Array<() => void> = [];
  const program = async (channel: CallerChannel) => {
    for (const approval of approvals) {
      const decided = new AbortController();
      void channel.ask?.(approval, decided.signal);
      await new Promise<void>((resolve) => gates.push(resolve));
      decided.abort();
    }
    return result;
  };
  return { program, next: () => gates.shift()?.() };
}

describe('HeldRuns', () => {
  it('answers a program that is never held with its result, writing nothing', async () => {
    const s = store();
    const { id, standing } = await runsOn(s, 'a').start('admin', async () => 42);
    expect(standing).toEqual({ state: 'done', result: 42 });
    expect(await s.getRun(id)).toBeUndefined();
  });

  it('rejects as the program did when it fails before being held', async () => {
    await expect(
      runsOn(store(), 'a').start('admin', async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
  });

  it('follows a held program here and from another instance through the store', async () => {
    const s = store();
    const first = approvalRecord({ id: 'ap-1' });
    const second = approvalRecord({ id: 'ap-2' });
    await s.create(first);
    await s.create(second);
    const here = runsOn(s, 'a');
    const there = runsOn(s, 'b');
    const { program, next } = asking([first, second], { ok: true });
    const { id, standing } = await here.start('token:ci', program);
    expect(standing).toMatchObject({ state: 'held', approval: { id: 'ap-1' } });
    // Another caller learns nothing, here or there.
    expect(await here.after(id, 'admin', 'ap-1', 10)).toEqual({ state: 'unknown' });
    expect(await there.after(id, 'admin', 'ap-1', 10)).toEqual({ state: 'unknown' });
    next();
    expect(await there.after(id, 'token:ci', 'ap-1', 5_000)).toMatchObject({
      state: 'held',
      approval: { id: 'ap-2' },
    });
    next();
    expect(await here.after(id, 'token:ci', 'ap-2', 5_000)).toEqual({
      state: 'done',
      result: { ok: true },
    });
    expect(await there.after(id, 'token:ci', 'ap-2', 5_000)).toEqual({
      state: 'done',
      result: { ok: true },
    });
  });

  it('is in the store before the first answer, however slow the store writes', async () => {
    const s = store();
    const slow = {
      ...s,
      putRun: async (run: Parameters<typeof s.putRun>[0]) => {
        // A slow store on purpose: the thing under test is an answer that waits for the write.
        await new Promise((r) => setTimeout(r, 100));
        await s.putRun(run);
      },
    };
    const approval = approvalRecord({ id: 'ap-5' });
    await s.create(approval);
    const { program } = asking([approval], 1);
    const { id, standing } = await runsOn(slow, 'a').start('admin', program);
    expect(standing.state).toBe('held');
    // The retry reaches another instance at once: it finds the program held, not unknown.
    expect(await runsOn(s, 'b').after(id, 'admin', 'ap-0', 10)).toMatchObject({
      state: 'held',
      approval: { id: 'ap-5' },
    });
  });

  it('a run the store never had is unknown once the wait is over, not before', async () => {
    const started = Date.now();
    expect(await runsOn(store(), 'b').after('nope', 'admin', 'ap-0', 300)).toEqual({
      state: 'unknown',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('still held when the program has not moved on within the wait', async () => {
    const s = store();
    const approval = approvalRecord({ id: 'ap-3' });
    await s.create(approval);
    const { program } = asking([approval], 1);
    const runs = runsOn(s, 'a');
    const { id } = await runs.start('admin', program);
    expect(await runs.after(id, 'admin', 'ap-3', 50)).toMatchObject({
      state: 'held',
      approval: { id: 'ap-3' },
    });
  });

  it("the request's signal ends the program until it is held, not after", async () => {
    const s = store();
    const request = new AbortController();
    let seen: AbortSignal | undefined;
    const started = runsOn(s, 'a').start(
      'admin',
      (_channel, signal) => {
        seen = signal;
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('cancelled'))),
        );
      },
      request.signal,
    );
    request.abort();
    await expect(started).rejects.toThrow('cancelled');
    expect(seen?.aborted).toBe(true);

    const approval = approvalRecord({ id: 'ap-4' });
    await s.create(approval);
    const later = new AbortController();
    const { program } = asking([approval], 1);
    let heldSignal: AbortSignal | undefined;
    await runsOn(s, 'a').start(
      'admin',
      (channel, signal) => {
        heldSignal = signal;
        return program(channel);
      },
      later.signal,
    );
    later.abort();
    expect(heldSignal?.aborted).toBe(false);
  });
});
