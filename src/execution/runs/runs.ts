/**
 * @module The runs alive on this instance and the answers of those that yielded: a run is
 * started by its request and answered `running` once `code_execution_yield_ms` pass without
 * an end; whoever started it (or the admin) waits on it, or cancels it, by its id. A run that
 * never yields costs one map entry while it runs and nothing after. Runs owned by another
 * instance of a cluster are reached through `SharedRuns` (the store).
 */
import { DEFAULT_YIELD_MS } from '../../config/defaults.ts';
import type { ResolvedConfig } from '../../config/index.ts';
import type { JournalEntry, JournalRun, RunJournalStore } from '../../store/index.ts';
import { ATTR, type TraceSpan } from '../../telemetry/index.ts';
import type { Logger } from '../../util/logger.ts';
import { sortableId } from '../../util/sortable-id.ts';
import { waitFor } from '../../util/wait-for.ts';
import { callerLabel } from '../activity/entry.ts';
import type { Caller, ErrorBody } from '../types.ts';
import { LiveRun, type RunEnd, type RunKind, type RunSnapshot } from './live-run.ts';
import { JOURNAL_LEASE_MS, RunJournal } from './run-journal.ts';
import { followProgress } from './run-progress.ts';

/** Where a run stands for the request that asked: its end, or running still. */
export type RunAnswer<T> =
  | { state: 'ended'; end: RunEnd<T>; snapshot: RunSnapshot }
  | { state: 'running'; snapshot: RunSnapshot };

/** What a request to continue a run gets: where it stands, or why it may not continue it. */
export type ResumeAnswer<T> = RunAnswer<T> | { state: 'refused'; error: ErrorBody };

/**
 * How long a cancel waits for the run's CANCELLED end before answering `running`: at once here;
 * from another instance, the owner hears it within a second, or later on a loaded machine.
 */
const CANCEL_WAIT_MS = 30_000;

/** What the request waiting on a run brings. */
export interface RunRequest {
  /** The waiting request's own signal: when it aborts, the wait ends (the run goes on, once yielded). */
  signal?: AbortSignal;
  /** Progress notifications on the waiting request (it carried a progressToken). */
  progress?: (message: string) => void;
  /**
   * An MCP task: the run belongs to no request and is kept from its start (as if it yielded
   * at once), so its answer is readable by id even when it ends at once; `start` answers
   * without waiting.
   */
  keep?: boolean;
  /** The request's span (traces on): a run it starts is its child; a continue names the run on it. */
  span?: TraceSpan;
}

/** Runs of other instances of a cluster, through the store (absent: this instance's only). */
export interface SharedRuns {
  /** A run yielded here: others may find it once this resolves (before its running answer goes out). */
  published(run: LiveRun): Promise<void>;
  /** A published run ended here. */
  ended(run: LiveRun): void;
  /** A run of another instance that `owner` may see (undefined: none). */
  wait<T>(
    id: string,
    owner: string | undefined,
    waitMs: number,
    request: RunRequest,
  ): Promise<RunAnswer<T> | undefined>;
  /** Asks the owning instance to cancel; false when no such run is alive. */
  cancel(id: string, owner: string | undefined, reason: string): Promise<boolean>;
  /** The runs of other instances `owner` may see (undefined: all). */
  list(owner: string | undefined): Promise<RunSnapshot[]>;
}

export interface RunsDeps {
  config: () => ResolvedConfig;
  instanceId: () => string;
  shared?: SharedRuns;
  /** Where runs are journaled (code_execution_durable); without it nothing survives a stop. */
  journals?: RunJournalStore;
  logger?: Logger;
}

/** How a run starts besides its kind, caller and request. */
export interface StartOptions {
  /** The code tool's name, for `code_tool` runs. */
  tool?: string;
  /** What its journal needs to run the program again: its arguments and surface. */
  journal?: { request: unknown; surface: string };
  /** The journal of the run this one resumes: it takes its id and answers from it first. */
  resumed?: { record: JournalRun; entries: JournalEntry[] };
}

/** How often a restarted or other instance looks for journaled runs whose owner is gone. */
const CLAIM_EVERY_MS = 2_000;

/** The refusal when `code_execution_max_running` runs are alive. */
function tooMany(max: number): ErrorBody {
  return {
    code: 'QUEUE_FULL',
    message: `${max} runs are alive on this gateway (code_execution_max_running); wait for one to end (codemux executions list) or raise the setting, then call again`,
  };
}

export class Runs {
  private readonly runs = new Map<string, LiveRun>();
  private alive = 0;

  constructor(private readonly deps: RunsDeps) {}

  /** The key of a caller's runs (the same token), or undefined for the admin, who sees all. */
  static ownerOf(caller: Caller): string | undefined {
    return caller.kind === 'admin' ? undefined : callerLabel(caller);
  }

  /** A continue's wait when it names none: code_execution_yield_ms (30 s when yielding is off). */
  get defaultWaitMs(): number {
    return this.deps.config().codeExecution.yieldMs || DEFAULT_YIELD_MS;
  }

  /** Runs alive on this instance, yielded ones included. */
  get running(): number {
    return this.alive;
  }

  /**
   * Starts `body` as a run of `caller` and waits up to code_execution_yield_ms for its end.
   * The body gets the run (its id, signal and refusal when over code_execution_max_running).
   */
  async start<T>(
    kind: RunKind,
    caller: Caller,
    request: RunRequest,
    body: (run: LiveRun<T>) => Promise<T>,
    options: StartOptions = {},
  ): Promise<RunAnswer<T>> {
    const config = this.deps.config();
    const { tool, resumed } = options;
    const run = new LiveRun<T>(
      resumed?.record.id ?? sortableId(),
      kind,
      callerLabel(caller),
      this.deps.instanceId(),
      request.signal,
      tool,
    );
    if (request.span) {
      run.span = request.span;
      request.span.set(ATTR.executionId, run.id);
    }
    // A resumed run is admitted whatever the bound: it was alive before its instance stopped.
    if (this.alive >= config.codeExecution.maxRunning && !resumed) {
      run.refusal = tooMany(config.codeExecution.maxRunning);
    } else {
      this.alive++;
      this.runs.set(run.id, run as LiveRun);
      const journals = this.deps.journals;
      if (journals && config.codeExecution.durable && (options.journal || resumed)) {
        run.journal = new RunJournal(
          journals,
          {
            id: run.id,
            owner: run.owner,
            caller,
            kind,
            tool: tool ?? null,
            request: resumed?.record.request ?? options.journal!.request,
            surface: resumed?.record.surface ?? options.journal!.surface,
          },
          () => this.lease(),
          resumed,
        );
        this.renewing();
      }
      if (request.keep || resumed) {
        run.markYielded();
        this.deps.shared?.published(run as LiveRun);
      }
    }
    void body(run).then(
      (result) => this.ended(run, { result }),
      (thrown: unknown) => this.ended(run, { thrown }),
    );
    // A kept run answers at once; a refused one (QUEUE_FULL) ends at once and keeps nothing.
    if ((request.keep || resumed) && !run.refusal) {
      return { state: 'running', snapshot: run.snapshot() };
    }
    const yieldMs = config.codeExecution.yieldMs;
    let answer = await this.waitOn(run, yieldMs === 0 ? undefined : yieldMs, request, false);
    // A cancelled request cancelled its run: it ends at once, and never yields.
    if (answer.state === 'running' && request.signal?.aborted)
      answer = await this.waitOn(run, undefined, {}, false);
    if (answer.state === 'running') {
      run.markYielded();
      // Journaled before the running answer goes out: from now on it must survive a stop.
      await run.journal?.ensureBegun().catch((error: Error) => {
        this.deps.logger?.warn({ err: error.message, run: run.id }, 'beginning a journal failed');
        run.cancel(
          `the run's journal could not be begun (${error.message}); with code_execution_durable on, a run never goes on unjournaled`,
        );
      });
      await this.deps.shared?.published(run as LiveRun);
    }
    return answer;
  }

  /** This instance's lease on the journaled runs it owns: until when, from now. */
  private lease(): { id: string; leaseUntil: string } {
    return {
      id: this.deps.instanceId(),
      leaseUntil: new Date(Date.now() + JOURNAL_LEASE_MS).toISOString(),
    };
  }

  private renewTimer?: NodeJS.Timeout;

  /** Renews the lease of every journaled run alive here, while there are any. */
  private renewing(): void {
    if (this.renewTimer) return;
    this.renewTimer = setInterval(() => {
      const ids = [...this.runs.values()]
        .filter((run) => run.journal && !run.done && !run.abandoned)
        .map((run) => run.id);
      if (ids.length === 0) {
        clearInterval(this.renewTimer);
        this.renewTimer = undefined;
        return;
      }
      const { id, leaseUntil } = this.lease();
      this.deps.journals?.renew(ids, id, leaseUntil).catch((error: Error) => {
        this.deps.logger?.warn(
          { err: error.message },
          'renewing the lease of journaled runs failed',
        );
      });
    }, JOURNAL_LEASE_MS / 3);
    this.renewTimer.unref();
  }

  private claimTimer?: NodeJS.Timeout;

  /**
   * Resumes journaled runs whose instance stopped: at once those this instance id owned (a
   * configured `instance_id` that restarted), then, every CLAIM_EVERY_MS, any whose owner's
   * lease lapsed. `resume` starts one again from its journal.
   */
  startResuming(resume: (record: JournalRun, entries: JournalEntry[]) => Promise<void>): void {
    const journals = this.deps.journals;
    if (!journals || this.claimTimer) return;
    let claiming = false;
    const claim = async (mine: boolean) => {
      if (claiming || !this.deps.config().codeExecution.durable) return;
      claiming = true;
      try {
        const { id, leaseUntil } = this.lease();
        const taken = await journals.claim(id, leaseUntil, {
          mine,
          now: new Date().toISOString(),
          limit: 10,
        });
        for (const record of taken) {
          const entries = await journals.entries(record.id);
          this.deps.logger?.warn(
            { run: record.id, from: record.instance_id, entries: entries.length },
            `resuming run ${record.id} from its journal (its instance stopped)`,
          );
          await resume(record, entries);
        }
      } catch (error) {
        this.deps.logger?.warn({ err: (error as Error).message }, 'claiming journaled runs failed');
      } finally {
        claiming = false;
      }
    };
    void claim(true).then(() => claim(false));
    this.claimTimer = setInterval(() => void claim(false), CLAIM_EVERY_MS);
    this.claimTimer.unref();
  }

  /**
   * The instance stops with journaled runs still alive (past the drain): they are left to a
   * restart or another instance, their journals kept, their ends neither kept nor recorded.
   */
  abandonDurable(): void {
    for (const run of this.runs.values()) if (run.journal && !run.done) run.abandoned = true;
  }

  /** Stops renewing leases and claiming runs. */
  stop(): void {
    clearInterval(this.renewTimer);
    clearInterval(this.claimTimer);
    this.renewTimer = undefined;
    this.claimTimer = undefined;
  }

  private ended<T>(run: LiveRun<T>, end: RunEnd<T>): void {
    if (this.runs.get(run.id) === run) this.alive--;
    run.finish(end);
    if (run.abandoned) {
      // Its request hears the stop; its journal stays for whoever resumes it, and no other
      // instance is told it ended.
      this.runs.delete(run.id);
      return;
    }
    void run.journal?.finish();
    if (!run.yielded) {
      this.runs.delete(run.id);
      return;
    }
    this.deps.shared?.ended(run as LiveRun);
    const ttl = this.deps.config().codeExecution.resultTtlMs;
    setTimeout(() => this.runs.delete(run.id), ttl).unref();
  }

  /** The run `id` of this instance that `caller` may see, or undefined. */
  private find(id: string, caller: Caller): LiveRun | undefined {
    const run = this.runs.get(id);
    if (!run?.yielded) return undefined;
    const owner = Runs.ownerOf(caller);
    return owner === undefined || run.owner === owner ? run : undefined;
  }

  /**
   * Waits up to `waitMs` on run `id` of `caller` (cancelling it first when `cancel`): its end,
   * running still, or refused: EXECUTION_NOT_FOUND when the caller may see no such run,
   * INVALID_REQUEST when `cancel` names a run that already ended (its answer stays readable).
   */
  async resume<T>(
    id: string,
    caller: Caller,
    options: { waitMs: number; cancel?: boolean },
    request: RunRequest,
  ): Promise<ResumeAnswer<T>> {
    const owner = Runs.ownerOf(caller);
    const by = `cancelled by ${callerLabel(caller)}`;
    const run = this.find(id, caller) as LiveRun<T> | undefined;
    let answer: RunAnswer<T> | undefined;
    if (run) {
      if (options.cancel) {
        if (run.done) return { state: 'refused', error: alreadyEnded(id) };
        run.cancel(by);
      }
      answer = await this.waitOn(
        run,
        options.cancel ? CANCEL_WAIT_MS : options.waitMs,
        request,
        true,
      );
    } else if (this.deps.shared) {
      const shared = this.deps.shared;
      if (options.cancel && !(await shared.cancel(id, owner, by))) {
        const found = await shared.wait<T>(id, owner, 0, request);
        if (found?.state === 'ended') return { state: 'refused', error: alreadyEnded(id) };
        answer = found;
      } else {
        answer = await shared.wait<T>(
          id,
          owner,
          options.cancel ? CANCEL_WAIT_MS : options.waitMs,
          request,
        );
      }
    }
    if (!answer) return { state: 'refused', error: notFound(id, this.deps.config()) };
    return answer;
  }

  /** Cancels run `id` here (a cancel from another instance reached its owner). */
  cancelHere(id: string, reason: string): boolean {
    const run = this.runs.get(id);
    if (!run || run.done) return false;
    run.cancel(reason);
    return true;
  }

  /** The runs `caller` may see, on this instance and (with a store) the others. */
  async list(caller: Caller, status?: 'running' | 'done'): Promise<RunSnapshot[]> {
    const owner = Runs.ownerOf(caller);
    const here = [...this.runs.values()]
      .filter((run) => run.yielded && (owner === undefined || run.owner === owner))
      .map((run) => run.snapshot());
    const there = (await this.deps.shared?.list(owner)) ?? [];
    const seen = new Set(here.map((s) => s.execution_id));
    return [...here, ...there.filter((s) => !seen.has(s.execution_id))]
      .filter((s) => status === undefined || s.status === status)
      .sort((a, b) => (a.execution_id < b.execution_id ? 1 : -1));
  }

  /** Every live run of this instance (for a shared store's heartbeat and cancel polling). */
  liveRuns(): LiveRun[] {
    return [...this.runs.values()].filter((run) => run.yielded && !run.done);
  }

  /** Waits on `run` until it ends, `waitMs` pass (undefined: no limit) or the request aborts. */
  private async waitOn<T>(
    run: LiveRun<T>,
    waitMs: number | undefined,
    request: RunRequest,
    atOnce: boolean,
  ): Promise<RunAnswer<T>> {
    if (!run.end) {
      const stopProgress = request.progress
        ? followProgress(run as LiveRun, request.progress, atOnce)
        : undefined;
      try {
        await waitFor(run.ended, waitMs, request.signal);
      } finally {
        stopProgress?.();
      }
    }
    const snapshot = run.snapshot();
    return run.end ? { state: 'ended', end: run.end, snapshot } : { state: 'running', snapshot };
  }
}

/** EXECUTION_NOT_FOUND, naming the field and what may be wrong with it. */
function notFound(id: string, config: ResolvedConfig): ErrorBody {
  return {
    code: 'EXECUTION_NOT_FOUND',
    message: `execution_id "${id}" names no run you may continue: it is unknown, was started by another token, or ended more than ${config.codeExecution.resultTtlMs} ms ago (code_execution_result_ttl_ms); start the program again`,
  };
}

/** A cancel of a run that had already ended: refused, its answer kept. */
function alreadyEnded(id: string): ErrorBody {
  return {
    code: 'INVALID_REQUEST',
    message: `cancel: execution ${id} already ended, so there is nothing to cancel; its answer is kept: continue with {"execution_id": "${id}"} without cancel to read it`,
  };
}
