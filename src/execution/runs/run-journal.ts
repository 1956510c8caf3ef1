/**
 * @module One run's journal (DESIGN "Runs survive a restart"): its host interactions appended to
 * the store as they happen, so that a run alive when its instance stops can run again from its
 * start on another process, each journaled interaction answered from the journal in order, then
 * live. A call is journaled `sent` before it goes out and `answered` before the program sees its
 * answer: a call `sent` but never `answered` was in flight when the instance died, and is never
 * sent again ("outcome unknown"). The journal is bound to the program's digest. It is begun
 * lazily (at the first interaction, or when the run yields): a run that ends without either
 * writes nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { JournalEntry, JournalRun, RunJournalStore } from '../../store/index.ts';
import { canonicalJson } from '../../util/canonical-json.ts';
import type { ErrorBody } from '../types.ts';

/** What the journal needs of the store. */
export type JournalStore = Pick<RunJournalStore, 'begin' | 'append' | 'finish'>;

/** What a call's answer is on replay. */
export type ReplayStep =
  /** Journaled: the answer it had (a CallOutcome, or a catalog envelope). */
  | { answer: unknown }
  /** Sent, never answered: the instance died while it was in flight. */
  | { unknown: true }
  /** Held for approval `approvalId` when the instance stopped, never sent. */
  | { held: string }
  /** The program asked for something else here than the journal holds. */
  | { diverged: string };

/** What a journal entry of kind `call` says of the call. */
interface SentCall {
  what: string;
  server?: string;
  tool?: string;
  args_sha256: string;
}

/** The header fields the run knows when it starts. */
export type JournalHeader = Omit<
  JournalRun,
  'program_sha256' | 'seed' | 'instance_id' | 'lease_until' | 'resumed' | 'created_at'
>;

/** The digest a journal is bound to: what runs, as canonical JSON (source, language, input...). */
export function programDigest(program: unknown): string {
  return createHash('sha256').update(canonicalJson(program)).digest('hex');
}

/** How long a journaled run's lease lasts; its owner renews it while the run lives. */
export const JOURNAL_LEASE_MS = 15_000;

/** The answer a call in flight at the stop gets, never sent again. */
export function outcomeUnknown(server: string, tool: string) {
  return {
    ok: false as const,
    code: 'UPSTREAM_ERROR' as const,
    message: `outcome unknown: the gateway stopped while ${server}.${tool} was in flight`,
  };
}

/** REPLAY_DIVERGED, naming where and what. */
export function replayDiverged(detail: string): ErrorBody {
  return {
    code: 'REPLAY_DIVERGED',
    message: `the resumed program ${detail}; nothing more was sent`,
  };
}

export class RunJournal {
  private begun?: Promise<void>;
  /** What runs (bound by `bind`); digested only when the journal begins or is compared. */
  private program?: unknown;
  private nextStep = 0;
  /** The next entry's number (unique per run, in write order). */
  private nextEntry = 0;
  /** Journaled steps by number (a resumed run). */
  private readonly steps = new Map<number, { sent?: SentCall; answer?: unknown; held?: string }>();
  private readonly clock: number[] = [];
  /** The first write that failed: the run must stop (it would go on unjournaled). */
  failure?: string;
  private finished = false;
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly store: JournalStore,
    private readonly header: JournalHeader,
    private readonly instance: () => { id: string; leaseUntil: string },
    /** The journal of the run this one resumes. */
    private readonly resumed?: { record: JournalRun; entries: JournalEntry[] },
  ) {
    // randomUUID draws from Node's cached entropy (randomBytes makes a syscall per run).
    this.seed = resumed?.record.seed ?? randomUUID().replaceAll('-', '').slice(0, 16);
    for (const entry of resumed?.entries ?? []) {
      this.load(entry);
      this.nextEntry = Math.max(this.nextEntry, entry.seq + 1);
    }
    if (resumed) this.begun = Promise.resolve();
  }

  /** The seed of the run's random numbers (the same on every resume). */
  readonly seed: string;

  get id(): string {
    return this.header.id;
  }

  /** True for the journal of a resumed run. */
  get replaying(): boolean {
    return this.resumed !== undefined;
  }

  /** How many times the run was resumed (0 for a run on its first life). */
  get resumedCount(): number {
    return this.resumed?.record.resumed ?? 0;
  }

  /** The clock readings the run took before its stop, in order (its replay answers them). */
  get replayClock(): number[] {
    return this.clock;
  }

  private load(entry: JournalEntry): void {
    const data = entry.data as Record<string, unknown>;
    if (entry.kind === 'clock') {
      this.clock.push(...((data.readings as number[]) ?? []));
      return;
    }
    const at = data.step as number;
    const step = this.steps.get(at) ?? {};
    if (entry.kind === 'call') step.sent = data.call as SentCall;
    else if (entry.kind === 'answer') step.answer = data.outcome;
    else if (entry.kind === 'held') step.held = data.approval_id as string;
    this.steps.set(at, step);
  }

  /**
   * Binds the journal to what runs (source, language, input...: hashed with programDigest). A
   * resumed run whose program is not the one its journal was written by (a stored script or code
   * tool edited meanwhile) gets REPLAY_DIVERGED. A run on its first life hashes it only if its
   * journal begins: a run that never yields nor calls pays nothing for it.
   */
  bind(program: unknown): ErrorBody | undefined {
    this.program = program;
    const was = this.resumed?.record.program_sha256;
    if (was !== undefined && was !== programDigest(program)) {
      return replayDiverged(
        'is not the program its journal was written by (its script or code tool was edited meanwhile), so it runs nothing',
      );
    }
    return undefined;
  }

  /** The number of the program's next interaction (calls, catalog reads), in the order it asks. */
  next(): number {
    return this.nextStep++;
  }

  /** What the journal holds for interaction `at`, asked as `what` (undefined: nothing, go live). */
  replayed(at: number, what: string, argsSha256: string): ReplayStep | undefined {
    const step = this.steps.get(at);
    if (!step) return undefined;
    const asked = step.sent ?? undefined;
    if (asked && (asked.what !== what || asked.args_sha256 !== argsSha256)) {
      return {
        diverged: `asked for ${what} at step ${at + 1}, where its journal holds ${asked.what} (with ${asked.args_sha256 === argsSha256 ? 'the same' : 'other'} arguments)`,
      };
    }
    if (step.answer !== undefined) return { answer: step.answer };
    if (asked) return { unknown: true };
    if (step.held) return { held: step.held };
    return undefined;
  }

  /** Journals the clock readings taken since the last interaction (before it). */
  async readings(readings: readonly number[]): Promise<void> {
    if (readings.length === 0) return;
    await this.append('clock', { readings });
  }

  /** Journals that call `at` waits for approval `approvalId` (a resume waits on it again). */
  held(at: number, approvalId: string): Promise<void> {
    return this.append('held', { step: at, approval_id: approvalId });
  }

  /** Journals that interaction `at` goes out now (before it is sent). */
  sent(at: number, call: SentCall): Promise<void> {
    return this.append('call', { step: at, call });
  }

  /** Journals interaction `at`'s answer (before the program sees it). */
  answered(at: number, outcome: unknown): Promise<void> {
    return this.append('answer', { step: at, outcome });
  }

  /** Begins the journal now if it has not begun (the run yielded: it must survive a stop). */
  ensureBegun(): Promise<void> {
    this.begun ??= this.store.begin({
      ...this.header,
      program_sha256: this.program === undefined ? '' : programDigest(this.program),
      seed: this.seed,
      ...this.lease(),
      resumed: 0,
      created_at: new Date().toISOString(),
    });
    return this.begun;
  }

  private lease() {
    const { id, leaseUntil } = this.instance();
    return { instance_id: id, lease_until: leaseUntil };
  }

  private append(kind: string, data: unknown): Promise<void> {
    // The run ended (its last clock readings come with its outcome): nothing is left to replay.
    if (this.finished) return Promise.resolve();
    const write = this.write(kind, data);
    this.writes.add(write);
    void write.catch(() => {}).finally(() => this.writes.delete(write));
    return write;
  }

  private async write(kind: string, data: unknown): Promise<void> {
    if (this.failure) throw new Error(this.failure);
    // Numbered now, in the order the writes are asked for.
    const entry = { seq: this.nextEntry++, kind, data };
    try {
      await this.ensureBegun();
      await this.store.append(this.header.id, [entry]);
    } catch (error) {
      this.failure ??= `the run's journal could not be written (${(error as Error).message}); with code_execution_durable on, a run never goes on unjournaled`;
      throw new Error(this.failure);
    }
  }

  /** The run ended: its journal is removed (its answer is kept elsewhere). Never throws. */
  async finish(): Promise<void> {
    this.finished = true;
    if (!this.begun) return;
    await this.begun.catch(() => {});
    await Promise.allSettled([...this.writes]);
    await this.store.finish(this.header.id).catch(() => {});
  }
}
