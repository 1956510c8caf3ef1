/**
 * @module The execution run store contract: a row per run that yielded (DESIGN "Runs that
 * outlive their request"), so any instance of a cluster can answer a wait or a cancel for a run
 * that lives on another.
 */

/** One yielded run as the instance running it last wrote it. */
export interface ExecutionRunRecord {
  /** The execution id (sortable by time). */
  id: string;
  /** `admin` or `token:<name>`: only this caller (or the admin) may see the run. */
  owner: string;
  /** `code_execution`, `execute` or `code_tool`: the dialect of its answers. */
  kind: string;
  /** The code tool's name, for `code_tool` runs. */
  tool: string | null;
  /** The instance running it (the only one that can cancel it). */
  instance_id: string;
  status: 'running' | 'done';
  /** ISO 8601 UTC. */
  started_at: string;
  /** Where it stands (JSON): waiting_for, logs, tool_calls, elapsed_ms... as last written. */
  snapshot: unknown;
  /** Its final answer (JSON) once done; null while running. */
  answer: unknown;
  /** Set by whoever asked to cancel it (`cancelled by ...`); the owner reads it and stops the run. */
  cancel_requested_by: string | null;
  /** ISO 8601 UTC. */
  updated_at: string;
  /** A running row's lease (renewed while its instance lives); a done row's end of keeping. */
  expires_at: string;
}

/** What the owner writes: every field but the cancel request, which others make. */
export type ExecutionRunWrite = Omit<ExecutionRunRecord, 'cancel_requested_by'>;

/** A cancel asked of a running run, for its owner to act on. */
export interface CancelRequest {
  id: string;
  by: string;
}

/** Yielded runs; asynchronous so PostgreSQL fits behind the same contract. */
export interface ExecutionRunStore {
  /** Writes (or replaces) a run's row, keeping a cancel request already made. */
  put(run: ExecutionRunWrite): Promise<void>;
  get(id: string): Promise<ExecutionRunRecord | undefined>;
  /** Rows not expired at `now`, newest first, only `owner`'s when given, at most `limit`. */
  list(query: { now: string; owner?: string; limit: number }): Promise<ExecutionRunRecord[]>;
  /**
   * Asks that running run `id` be cancelled, `by` naming who (the first request's name is
   * kept); false when no such run is running and unexpired at `now`.
   */
  requestCancel(id: string, by: string, now: string): Promise<boolean>;
  /** The cancel requests on running rows of `instanceId`. */
  cancelRequests(instanceId: string): Promise<CancelRequest[]>;
  /** Deletes rows that expired before `now` (ISO 8601); returns how many. */
  trim(now: string): Promise<number>;
  /**
   * Calls `listener` with the id of a run another instance wrote or asked to cancel, soon
   * after; returns the unsubscribe. Without notices (SQLite, memory): never called.
   */
  onChange(listener: (id: string) => void): () => void;
}
