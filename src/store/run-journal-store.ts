/**
 * @module The run journal store contract (DESIGN "Runs survive a restart"): what a durable run
 * needs to run its program again after its instance stopped, and the host interactions it had,
 * in order, to answer the replay from.
 */

/** The kinds of run a journal can belong to (the dialect of its answers). */
export type JournalRunKind = 'code_execution' | 'execute' | 'code_tool';

/** One run's journal header: what is needed to run its program again. */
export interface JournalRun {
  /** The execution id. */
  id: string;
  /** `admin` or `token:<name>` (the caller's label). */
  owner: string;
  /** The caller as JSON, to rebuild it on resume. */
  caller: unknown;
  kind: JournalRunKind;
  /** The code tool's name, for `code_tool` runs. */
  tool: string | null;
  /** The run's arguments as JSON (code_execution's, execute's or the code tool's). */
  request: unknown;
  /** The activity surface it was started on. */
  surface: string;
  /** SHA-256 of what runs: the journal answers only this program. */
  program_sha256: string;
  /** The run's random seed. */
  seed: string;
  /** The instance running it. */
  instance_id: string;
  /** ISO 8601 UTC; the owner renews it while alive, another instance claims the run past it. */
  lease_until: string;
  /** How many times it was resumed (claimed). */
  resumed: number;
  /** ISO 8601 UTC. */
  created_at: string;
}

/**
 * One host interaction of a run: `seq` orders them (unique per run); `kind` (`call`, `answer`,
 * `clock`, `catalog`, `approval`...) and `data` (any JSON) are the journal's writers' business.
 */
export interface JournalEntry {
  seq: number;
  kind: string;
  data: unknown;
}

/** How big a run's journal is, as the cap counts it (bytes: UTF-8 of each kind and JSON data). */
export interface JournalSize {
  entries: number;
  bytes: number;
}

/** Which runs `claim` takes over. */
export interface ClaimOptions {
  /**
   * true: the runs `instanceId` owned (it restarted), whatever their lease; false: runs of any
   * instance whose lease ended before `now`.
   */
  mine: boolean;
  /** ISO 8601 UTC: a lease before it has lapsed. */
  now: string;
  /** At most this many runs, oldest first. */
  limit: number;
}

/**
 * Journals of durable runs; asynchronous so PostgreSQL fits behind the same contract. Failures
 * are CodemuxErrors: JOURNAL_FULL (past MAX_JOURNAL_ENTRIES or MAX_JOURNAL_BYTES),
 * JOURNAL_CONFLICT (a seq already journaled), JOURNAL_NOT_FOUND (no header for the run).
 */
export interface RunJournalStore {
  /** Writes a run's header (its journal empty); a second begin of one id is JOURNAL_CONFLICT. */
  begin(run: JournalRun): Promise<void>;
  /**
   * Appends entries to run `id`'s journal, all or none; a seq the run already has is
   * JOURNAL_CONFLICT, one past the cap JOURNAL_FULL (nothing is written then).
   */
  append(id: string, entries: readonly JournalEntry[]): Promise<void>;
  /** Run `id`'s entries ordered by seq (none for an unknown run). */
  entries(id: string): Promise<JournalEntry[]>;
  get(id: string): Promise<JournalRun | undefined>;
  /**
   * Takes over runs (see ClaimOptions): sets their instance id and lease and adds one to
   * `resumed`, one conditional update per run, so of two instances claiming at once only one
   * gets each run. Returns the runs taken, as they now stand, oldest first.
   */
  claim(instanceId: string, leaseUntil: string, options: ClaimOptions): Promise<JournalRun[]>;
  /** Extends the lease of those of `ids` that `instanceId` owns (a run claimed away is left alone). */
  renew(ids: readonly string[], instanceId: string, leaseUntil: string): Promise<void>;
  /** The run ended: its header and entries are deleted (its answer is kept elsewhere). */
  finish(id: string): Promise<void>;
  /** Entries and bytes of run `id`'s journal so far (zero for an unknown run). */
  size(id: string): Promise<JournalSize>;
}
