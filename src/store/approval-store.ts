/** @module The approval store contract: approvals of held upstream calls, and held runs (input_required). */

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = [
  'pending',
  'approved',
  'denied',
  'expired',
];

/** One held upstream call waiting for (or given) a person's decision (`tool_policy` "ask"). */
export interface ApprovalRecord {
  /** Sortable by time, like activity ids. */
  id: string;
  status: ApprovalStatus;
  server: string;
  tool: string;
  /**
   * The arguments as shown: key-sorted, secrets redacted; whole up to 64 KiB of canonical
   * JSON, else only the top-level keys that fit (the others are in `args_cut_keys`).
   */
  args: unknown;
  /** True when keys were left out of `args`; the whole JSON is at GET /api/v1/approvals/{id}/args. */
  args_truncated: boolean;
  /** The top-level keys left out of `args` (empty when `args` is whole). */
  args_cut_keys: string[];
  /** Lowercase hex SHA-256 of the whole arguments' canonical JSON (keys sorted). */
  args_sha256: string;
  /** "annotated destructive", "rule N" or "default". */
  reason: string;
  /** `admin` or `token:<name>`. */
  caller: string;
  /** The execution's activity record (null when the history is off). */
  activity_id: string | null;
  /** The program that made the call (cut like the history's code). */
  code: string | null;
  /** ISO 8601 UTC. */
  created_at: string;
  expires_at: string;
  /** Who decided (`admin`, `elicitation`, `terminal`, ...); for an expired one, what ended it. */
  decided_by: string | null;
  decided_at: string | null;
  /** The instance holding the call. */
  instance_id: string;
}

/** What a decision did: decided now, already decided (or expired), or no such approval. */
export type ApprovalDecideOutcome =
  | { outcome: 'decided'; approval: ApprovalRecord }
  | { outcome: 'already'; approval: ApprovalRecord }
  | { outcome: 'missing' };

/**
 * A program of a 2026-07-28 client held on an approval (input_required): the instance running
 * it writes where it stands, and the instance that takes the retried call reads it.
 */
export interface HeldRunRecord {
  id: string;
  /** `admin` or `token:<name>`: only this caller's retry may read it. */
  caller: string;
  /** The instance running the program. */
  instance_id: string;
  /** `held`: waiting on `approval_id`; `done`: `result` is the tools/call result. */
  state: 'held' | 'done';
  approval_id: string | null;
  result: unknown;
  /** ISO 8601 UTC. */
  updated_at: string;
  expires_at: string;
}

/** Approvals; asynchronous so PostgreSQL fits behind the same contract. */
export interface ApprovalStore {
  /** `argsWhole`: the whole arguments' JSON when `approval.args` is cut, else null. */
  create(approval: ApprovalRecord, argsWhole?: string | null): Promise<void>;
  /** The whole arguments' JSON of a cut approval; null when it was not cut; undefined: no approval. */
  getArgs(id: string): Promise<string | null | undefined>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Newest first, at most `limit`; only `status` when given. */
  list(query: { status?: ApprovalStatus; limit: number }): Promise<ApprovalRecord[]>;
  /**
   * Moves a pending approval to `status` atomically (the first decision wins, on any
   * instance); an approval that is no longer pending is answered 'already', unchanged.
   */
  decide(
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    decidedAt: string,
  ): Promise<ApprovalDecideOutcome>;
  /** Deletes decided approvals created before `before` (ISO 8601); returns how many. */
  trim(before: string): Promise<number>;
  /**
   * Calls `listener` with the id of an approval another instance created or decided, soon
   * after (within a second); returns the unsubscribe. One database per gateway: never called.
   */
  onChange(listener: (id: string) => void): () => void;
  /** Writes (or replaces) a held run's standing. */
  putRun(run: HeldRunRecord): Promise<void>;
  getRun(id: string): Promise<HeldRunRecord | undefined>;
  /** Deletes runs that expired before `now` (ISO 8601); returns how many. */
  trimRuns(now: string): Promise<number>;
  /** Calls `listener` with the id of a run another instance wrote; returns the unsubscribe. */
  onRunChange(listener: (id: string) => void): () => void;
}
