/** @module The activity store contract: the history of executions and of the upstream calls they made. */

export type ActivityKind = 'execution' | 'tool_call';
export type ActivitySurface = 'mcp' | 'rest' | 'cli' | 'codemode' | 'code_tool' | 'ui';
/** success; tool_error (the upstream answered an error); error; blocked (policy); rejected (invalid request). */
export type ActivityStatus = 'success' | 'tool_error' | 'error' | 'blocked' | 'rejected';

export const ACTIVITY_KINDS: readonly ActivityKind[] = ['execution', 'tool_call'];
export const ACTIVITY_SURFACES: readonly ActivitySurface[] = [
  'mcp',
  'rest',
  'cli',
  'codemode',
  'code_tool',
  'ui',
];
export const ACTIVITY_STATUSES: readonly ActivityStatus[] = [
  'success',
  'tool_error',
  'error',
  'blocked',
  'rejected',
];

/** One execution, or one upstream call it made (`parent_id` names the execution). */
export interface ActivityRecord {
  /** Sortable by time (hex milliseconds, then a counter and random digits). */
  id: string;
  parent_id: string | null;
  kind: ActivityKind;
  surface: ActivitySurface;
  /** `admin` or `token:<name>`. */
  caller: string;
  server: string | null;
  tool: string | null;
  script: string | null;
  language: string | null;
  code: string | null;
  /** The execution's input (JSON; a string with a marker when cut). */
  input: unknown;
  /** A tool call's arguments (JSON; a string with a marker when cut). */
  args: unknown;
  status: ActivityStatus;
  error: { code: string; message: string } | null;
  /**
   * ISO 8601 UTC as `Date#toISOString` writes it for years 0000-9999 (24 characters): its text
   * order is its time order, which the stores' `since` filter relies on.
   */
  started_at: string;
  duration_ms: number;
  /**
   * A tool call only (absent elsewhere and on records from before it was kept): milliseconds
   * from its execution's start to the start of its `duration_ms`, so it ran over
   * [offset_ms, offset_ms + duration_ms] of the execution's time axis (the waterfall).
   */
  offset_ms?: number;
  logs: string[];
  /** What the execution or the call answered (JSON; a string with a marker when cut). */
  response: unknown;
  instance_id: string;
  /** The approval that let this call go out (tool_policy ask); null otherwise. */
  approval_id?: string | null;
  /** Present (true) only for a dry run (the playground's switch) and its stubbed calls. */
  dry_run?: true;
  /** Present only for an execution resumed from its journal: how many times it was. */
  resumed?: number;
}

export interface ActivityQuery {
  limit: number;
  offset: number;
  kind?: ActivityKind;
  status?: ActivityStatus;
  server?: string;
  parent_id?: string;
  /** Records that started at or after this instant (epoch milliseconds, any year). */
  sinceMs?: number;
  /** Records that started before this instant. */
  untilMs?: number;
  /** `admin` or `token:<name>`. */
  caller?: string;
  surface?: ActivitySurface;
  tool?: string;
  /** Text found in the code, the input or the arguments (case-insensitive). */
  search?: string;
}

/** The records an overview counts: those that started in [sinceMs, untilMs). */
export interface OverviewWindow {
  sinceMs: number;
  untilMs: number;
  /** How many of the most failing tools to return. */
  failingLimit: number;
}

/** How many records of one kind and status started in one UTC hour. */
export interface HourTally {
  /** The hour's start, `YYYY-MM-DDTHH:00:00.000Z`. */
  hour: string;
  kind: ActivityKind;
  status: ActivityStatus;
  count: number;
}

/** How long one server's calls took: nearest-rank percentiles of `duration_ms`. */
export interface ServerLatency {
  server: string;
  calls: number;
  p50_ms: number;
  p95_ms: number;
}

/** A tool whose calls failed (`tool_error` or `error`), and how many calls it had. */
export interface FailingTool {
  server: string;
  tool: string;
  failures: number;
  calls: number;
}

/**
 * What the dashboard's Overview charts. Dry-run calls (answered by a stub, never sent) are left
 * out; the latencies count only calls that were let out (not `blocked` or `rejected`).
 */
export interface ActivityOverview {
  /** By hour, kind, then status. */
  hours: HourTally[];
  /** By server name. */
  latency: ServerLatency[];
  /** Most failures first (then server, tool), at most `failingLimit`. */
  failing: FailingTool[];
}

/** Activity history; asynchronous so PostgreSQL fits behind the same contract. */
export interface ActivityStore {
  /** Writes a batch in one transaction; `seq` orders a parent's children. */
  insert(records: ReadonlyArray<ActivityRecord & { seq: number }>): Promise<void>;
  /** Newest first. */
  list(query: ActivityQuery): Promise<{ items: ActivityRecord[]; total: number }>;
  get(id: string): Promise<ActivityRecord | undefined>;
  /** A record's children, in the order they were made. */
  children(parentId: string): Promise<ActivityRecord[]>;
  /** The aggregates of the records that started within `window` (the Overview page). */
  overview(window: OverviewWindow): Promise<ActivityOverview>;
  /** Deletes records older than `before` and the oldest beyond `maxRecords`; returns how many. */
  trim(before: string, maxRecords: number): Promise<number>;
  /**
   * Several instances on one database: calls `listener` with the records another instance
   * wrote, soon after it wrote them (absent where one instance owns the database).
   */
  onRemoteInsert?(listener: (records: ActivityRecord[]) => void): () => void;
  close(): Promise<void>;
}
