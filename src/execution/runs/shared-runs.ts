/**
 * @module Runs across the instances of a cluster, through the execution run store (DESIGN "Runs
 * that outlive their request": any instance answers a wait or a cancel). The owner writes a row
 * when a run yields (a run that never yields writes nothing), again when where it stands changes
 * (at most once a second, and at least every RENEW_MS so the row's lease never lapses while the
 * run lives) and at its end. Another instance reads the row: a waiter is woken by the store's
 * notice (PostgreSQL) or polls every POLL_MS; a cancel is written into the row, and the owner,
 * told by a notice or by its own poll each second, stops the run.
 */
import type { ResolvedConfig } from '../../config/index.ts';
import type { ExecutionRunRecord, ExecutionRunStore } from '../../store/index.ts';
import type { Logger } from '../../util/logger.ts';
import { errorResult } from '../execute-result.ts';
import { refusal } from '../run-frame.ts';
import type { LiveRun, RunEnd, RunSnapshot } from './live-run.ts';
import { PROGRESS_HEARTBEAT_MS, PROGRESS_MIN_GAP_MS, snapshotLine } from './run-progress.ts';
import type { RunAnswer, RunRequest, SharedRuns } from './runs.ts';
import { rowEnd, rowSnapshot, runRow } from './stored-run.ts';

/** How a run lost with its instance ends when it was not journaled: INTERRUPTED, in its dialect. */
function interruptedEnd<T>(row: ExecutionRunRecord): RunEnd<T> {
  const error = {
    code: 'INTERRUPTED',
    message: `the run was lost when its gateway (instance ${row.instance_id}) stopped, and it was not journaled (code_execution_durable is false); start the program again`,
  };
  const result =
    row.kind === 'execute'
      ? {
          result: errorResult({
            kind: 'ExecutionFailure',
            message: error.message,
            code: error.code,
          }),
        }
      : refusal(error, performance.now());
  return { result: result as T };
}

/** How often the owner writes a changed snapshot and looks for cancels asked of its runs. */
const TICK_MS = 1_000;
/** How often a waiter on another instance reads the row when it hears nothing. */
const POLL_MS = 250;
/** How long a running row stays valid without a write: past it, its instance is taken as gone. */
const RUNNING_LEASE_MS = 60_000;
/** The owner rewrites a running row at least this often, so its lease never lapses. */
const RENEW_MS = RUNNING_LEASE_MS / 3;
/** Expired rows are deleted at most this often (at a run's end). */
const TRIM_EVERY_MS = 60_000;
/** Rows a list reads at most. */
const LIST_LIMIT = 1_000;

export interface StoreRunsDeps {
  store: ExecutionRunStore;
  config: () => ResolvedConfig;
  instanceId: () => string;
  logger: Logger;
  /** Cancels a run alive on this instance (Runs.cancelHere). */
  cancelHere: (id: string, reason: string) => boolean;
  /** True when run `id` has a journal (it will be resumed); absent: no run is journaled. */
  journaled?: (id: string) => Promise<boolean>;
}

/** A run of this instance others may find: what was last written, and the writes in order. */
interface Published {
  run: LiveRun;
  /** The snapshot last written, as JSON (its elapsed time left out). */
  written?: string;
  writtenAt: number;
  /** The row's writes, one after the other: the store never ends on an older one. */
  writing: Promise<void>;
}

export class StoreRuns implements SharedRuns {
  private readonly mine = new Map<string, Published>();
  private readonly pending = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private unlisten?: () => void;
  private ticking = false;
  private trimmedAt = 0;
  private stopped = false;

  constructor(private readonly deps: StoreRunsDeps) {}

  async published(run: LiveRun): Promise<void> {
    const entry: Published = { run, writtenAt: 0, writing: Promise.resolve() };
    this.mine.set(run.id, entry);
    this.follow();
    // Written before the running answer goes out: the caller may ask another instance next.
    await this.write(entry);
  }

  ended(run: LiveRun): void {
    const entry = this.mine.get(run.id);
    if (!entry) return;
    this.mine.delete(run.id);
    if (this.mine.size === 0) this.unfollow();
    void this.write(entry);
  }

  async wait<T>(
    id: string,
    owner: string | undefined,
    waitMs: number,
    request: RunRequest,
  ): Promise<RunAnswer<T> | undefined> {
    const until = Date.now() + waitMs;
    let wake: () => void = () => {};
    const stop = this.deps.store.onChange((changed) => {
      if (changed === id) wake();
    });
    const progress = request.progress ? remoteProgress(request.progress) : undefined;
    try {
      for (;;) {
        const row = await this.read(id, owner);
        if (!row) return undefined;
        const snapshot = rowSnapshot(row, Date.now());
        if (row.status === 'done') return { state: 'ended', end: rowEnd<T>(row), snapshot };
        if (row.lost) {
          return {
            state: 'ended',
            end: interruptedEnd<T>(row),
            snapshot: { ...snapshot, status: 'done' },
          };
        }
        if (Date.now() >= until || request.signal?.aborted) return { state: 'running', snapshot };
        progress?.(snapshot);
        const heard = new Promise<void>((resolve) => {
          wake = resolve;
        });
        await waitFor(heard, Math.min(POLL_MS, until - Date.now()), request.signal);
      }
    } finally {
      stop();
    }
  }

  async cancel(id: string, owner: string | undefined, reason: string): Promise<boolean> {
    const row = await this.read(id, owner);
    if (row?.status !== 'running' || row.lost) return false;
    return this.deps.store.requestCancel(id, reason, new Date().toISOString());
  }

  async list(owner: string | undefined): Promise<RunSnapshot[]> {
    const now = Date.now();
    const rows = await this.deps.store.list({
      now: new Date(now).toISOString(),
      ...(owner === undefined ? {} : { owner }),
      limit: LIST_LIMIT,
    });
    return rows.filter((row) => !this.lostHere(row)).map((row) => rowSnapshot(row, now));
  }

  /** Stops following this instance's runs and waits for the writes under way (runtime.stop). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow();
    await Promise.allSettled([...this.pending]);
  }

  /**
   * The row of run `id` that `owner` may see (undefined: all), unexpired; undefined when none. A
   * running row of this instance that is not alive here was lost with an earlier process.
   */
  private async read(
    id: string,
    owner: string | undefined,
  ): Promise<(ExecutionRunRecord & { lost: boolean }) | undefined> {
    const row = await this.deps.store.get(id);
    if (!row || (owner !== undefined && row.owner !== owner)) return undefined;
    const expired = row.expires_at < new Date().toISOString();
    // A running row whose instance is gone: resumed from its journal if it has one, else lost.
    const gone = row.status === 'running' && (expired || this.lostHere(row));
    if (!gone) return expired ? undefined : { ...row, lost: false };
    const journaled = (await this.deps.journaled?.(id)) ?? false;
    return { ...row, lost: !journaled };
  }

  private lostHere(row: ExecutionRunRecord): boolean {
    // A run resumed here from its journal is this instance's, and alive.
    return (
      row.status === 'running' &&
      row.instance_id === this.deps.instanceId() &&
      !this.mine.has(row.id)
    );
  }

  /** Writes the row of `entry` now, after the writes before it; a failure is logged. */
  private write(entry: Published): Promise<void> {
    const now = Date.now();
    const { run } = entry;
    const keepMs = run.done ? this.deps.config().codeExecution.resultTtlMs : RUNNING_LEASE_MS;
    const row = runRow(run, now, (run.endedAt ?? now) + keepMs);
    entry.written = standing(row.snapshot as RunSnapshot);
    entry.writtenAt = now;
    const done = entry.writing.then(async () => {
      try {
        await this.deps.store.put(row);
        if (run.done && now - this.trimmedAt >= TRIM_EVERY_MS) {
          this.trimmedAt = now;
          await this.deps.store.trim(new Date(now).toISOString());
        }
      } catch (error) {
        this.deps.logger.warn(
          { err: (error as Error).message, execution_id: run.id },
          'writing a yielded run to the store failed; other instances of the cluster may not see where it stands',
        );
      }
    });
    entry.writing = done;
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
    return done;
  }

  /** While runs of this instance are published: the tick, and notices of cancels asked. */
  private follow(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
    this.unlisten = this.deps.store.onChange((id) => {
      if (this.mine.has(id)) void this.cancelAsked(id);
    });
  }

  private unfollow(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unlisten?.();
    this.unlisten = undefined;
  }

  /** Writes the snapshots that changed (or whose lease needs renewing); acts on cancels asked. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = Date.now();
      for (const entry of this.mine.values()) {
        const changed = standing(entry.run.snapshot()) !== entry.written;
        if (changed || now - entry.writtenAt >= RENEW_MS) void this.write(entry);
      }
      const asked = await this.deps.store.cancelRequests(this.deps.instanceId());
      for (const { id, by } of asked) if (this.mine.has(id)) this.deps.cancelHere(id, by);
    } catch (error) {
      this.deps.logger.warn(
        { err: (error as Error).message },
        'reading the cancels asked of yielded runs failed; trying again in a second',
      );
    } finally {
      this.ticking = false;
    }
  }

  /** A notice about one of this instance's runs: a cancel asked on another instance, maybe. */
  private async cancelAsked(id: string): Promise<void> {
    try {
      const row = await this.deps.store.get(id);
      if (row?.cancel_requested_by) this.deps.cancelHere(id, row.cancel_requested_by);
    } catch {
      // The tick's poll asks again within a second.
    }
  }
}

/** What a snapshot shows others, its elapsed time left out (that alone is no change). */
function standing(snapshot: RunSnapshot): string {
  return JSON.stringify({ ...snapshot, elapsed_ms: 0 });
}

/**
 * Progress for a request waiting on a run of another instance, from each snapshot read: a line
 * at once, then on each new approval awaited or console line (at most two a second), and at
 * least every 10 s.
 */
function remoteProgress(progress: (message: string) => void): (snapshot: RunSnapshot) => void {
  let lastKey: string | undefined;
  let lastAt = 0;
  return (snapshot) => {
    const key = JSON.stringify([snapshot.waiting_for[0]?.approval_id, snapshot.logs.length]);
    const now = Date.now();
    const news = key !== lastKey && now - lastAt >= PROGRESS_MIN_GAP_MS;
    if (!news && now - lastAt < PROGRESS_HEARTBEAT_MS) return;
    lastKey = key;
    lastAt = now;
    progress(snapshotLine(snapshot));
  };
}

/** Waits for `promise`, at most `ms`, or until `signal` aborts. */
function waitFor(promise: Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
    void promise.then(done);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
