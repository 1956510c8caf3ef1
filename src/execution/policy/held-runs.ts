/**
 * @module Programs held in place on an approval, for a caller that cannot be asked while its
 * request stays open (a 2026-07-28 client: `input_required`). The program keeps running here,
 * waiting on its approval like any other; the request is answered at once with where it stands,
 * and the retried request, on this instance or any other, reads where it stands next. The
 * standing is written to the store only once a program has been held, so a call that is never
 * held costs nothing; nothing the program sends is ever sent twice (it runs once, here).
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalRecord, ApprovalStore, HeldRunRecord } from '../../store/index.ts';
import type { Logger } from '../../util/logger.ts';
import { waitFor } from '../../util/wait-for.ts';
import type { InputRecord } from './input-requests.ts';
import type { CallerChannel } from './types.ts';

/** Where a held program stands. */
export type RunStanding =
  | { state: 'done'; result: unknown }
  | { state: 'held'; approval: ApprovalRecord }
  /**
   * A call's upstream asks for input: answered by the retried call on this instance only (the
   * answer's values are never written to the store, so another instance cannot carry them).
   */
  | { state: 'input'; input: InputRecord }
  /** No such program for this caller (never held, or its standing expired). */
  | { state: 'unknown' };

/** What a standing waits on (an approval's or an input request's id); undefined when it waits on nothing. */
export const awaitedId = (s: RunStanding): string | undefined =>
  s.state === 'held' ? s.approval.id : s.state === 'input' ? s.input.id : undefined;

/** How often a retry on another instance reads the standing when it hears nothing (SQLite, lost notices). */
const POLL_MS = 200;
/** How long a standing is kept after its last change, beyond the approval timeout. */
const KEEP_AFTER_MS = 60_000;

interface LocalRun {
  caller: string;
  standing: RunStanding;
  /** Resolved (and replaced) at every change of `standing`. */
  changed: Promise<void>;
  notify: () => void;
}

export class HeldRuns {
  private readonly runs = new Map<string, LocalRun>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly instanceId: () => string,
    /** tool_policy.approval_timeout_ms: how long a standing must outlive its last change. */
    private readonly approvalTimeoutMs: () => number,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs a program whose approvals are answered elsewhere: resolves with its result when it
   * finishes without being held, else with its standing once it first waits on an approval
   * (it keeps running). A program that fails before being held rejects as it would have.
   */
  async start(
    caller: string,
    program: (channel: CallerChannel, signal: AbortSignal) => Promise<unknown>,
    /** The request's own signal: it ends the program only until the program is first held. */
    signal?: AbortSignal,
  ): Promise<{ id: string; standing: RunStanding }> {
    const id = randomUUID();
    const controller = new AbortController();
    let held = false;
    const cancel = () => {
      if (!held) controller.abort(signal?.reason);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    const run = { caller, standing: { state: 'unknown' } } as LocalRun;
    const renew = () => {
      run.changed = new Promise((resolve) => {
        run.notify = resolve;
      });
    };
    renew();
    // One write at a time, in order: the store never ends on an older standing.
    let writing = Promise.resolve();
    const move = (standing: RunStanding) => {
      run.standing = standing;
      const heard = run.notify;
      renew();
      heard();
      writing = writing.then(() => this.write(id, caller, standing));
    };
    const holdHere = () => {
      if (!held) {
        held = true;
        this.runs.set(id, run);
      }
    };
    const channel: CallerChannel = {
      // Never answers itself (the retried call decides through the desk); ends with the hold.
      ask: (approval, signal) => {
        holdHere();
        move({ state: 'held', approval });
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined)));
      },
      // The same for an upstream's question: the retried call answers it through the desk.
      askInput: (input, signal) => {
        holdHere();
        move({ state: 'input', input });
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined)));
      },
    };
    // Taken before the program starts: it may be held before the first await.
    const firstHeld = run.changed.then(() => undefined);
    const finished = program(channel, controller.signal).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const first = await Promise.race([finished, firstHeld]);
    // While it runs, its standing is written again now and then, so it never expires meanwhile.
    const heartbeat = setInterval(() => {
      writing = writing.then(() => this.write(id, caller, run.standing));
    }, KEEP_AFTER_MS / 2);
    heartbeat.unref();
    void finished.then((outcome) => {
      clearInterval(heartbeat);
      signal?.removeEventListener('abort', cancel);
      if (!held) return;
      move({ state: 'done', result: 'result' in outcome ? outcome.result : failed(outcome.error) });
      // The standing stays readable from the store; this instance's copy goes with it.
      setTimeout(() => this.runs.delete(id), this.keepMs()).unref();
    });
    if (first === undefined) {
      // Written before anyone is told: a retry on another instance finds it in the store.
      await writing;
      return { id, standing: run.standing };
    }
    clearInterval(heartbeat);
    if ('error' in first) throw first.error;
    return { id, standing: { state: 'done', result: first.result } };
  }

  /**
   * Where program `id` stands once it has moved past approval (or input request) `awaited`
   * (finished, or held on a later one), waiting up to `waitMs`; held on `awaited` still when it
   * has not.
   */
  async after(
    id: string,
    caller: string,
    awaited: string,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<RunStanding> {
    const until = Date.now() + waitMs;
    const local = this.runs.get(id);
    const movedOn = (s: RunStanding) => awaitedId(s) !== awaited;
    if (local) {
      if (local.caller !== caller) return { state: 'unknown' };
      while (!movedOn(local.standing) && Date.now() < until && !signal?.aborted) {
        await waitFor(local.changed, until - Date.now(), signal);
      }
      return local.standing;
    }
    // Held on another instance: its writes reach the store; a notice (PostgreSQL) wakes us early.
    let wake: () => void = () => {};
    const stop = this.store.onRunChange((changed) => {
      if (changed === id) wake();
    });
    try {
      for (;;) {
        const stored = await this.read(id, caller);
        const over = Date.now() >= until || signal?.aborted === true;
        // Not in the store (yet, or any more): unknown once the wait is over.
        if (stored === undefined ? over : movedOn(stored) || over)
          return stored ?? { state: 'unknown' };
        const heard = new Promise<void>((resolve) => {
          wake = resolve;
        });
        await waitFor(heard, Math.min(POLL_MS, until - Date.now()), signal);
      }
    } finally {
      stop();
    }
  }

  /** The standing in the store; undefined when it has no such run (yet). */
  private async read(id: string, caller: string): Promise<RunStanding | undefined> {
    const record = await this.store.getRun(id);
    if (!record) return undefined;
    if (record.caller !== caller || record.expires_at < new Date().toISOString())
      return { state: 'unknown' };
    if (record.state === 'done') return { state: 'done', result: record.result };
    const approval = record.approval_id ? await this.store.get(record.approval_id) : undefined;
    return approval ? { state: 'held', approval } : { state: 'unknown' };
  }

  private keepMs(): number {
    return this.approvalTimeoutMs() + KEEP_AFTER_MS;
  }

  private async write(id: string, caller: string, standing: RunStanding): Promise<void> {
    // An input request is answered on this instance only: the store keeps the standing before it.
    if (standing.state === 'unknown' || standing.state === 'input') return;
    const now = Date.now();
    const record: HeldRunRecord = {
      id,
      caller,
      instance_id: this.instanceId(),
      state: standing.state,
      approval_id: standing.state === 'held' ? standing.approval.id : null,
      result: standing.state === 'done' ? standing.result : null,
      updated_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.keepMs()).toISOString(),
    };
    try {
      await this.store.putRun(record);
      if (standing.state === 'done') await this.store.trimRuns(new Date(now).toISOString());
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message, run: id },
        "writing a held program's standing failed; a retry on another instance will not find it",
      );
    }
  }
}

/** A program that failed after being held: its error as a tool result. */
function failed(error: unknown): unknown {
  const message = (error as Error)?.message ?? String(error);
  return { content: [{ type: 'text', text: message }], isError: true };
}
