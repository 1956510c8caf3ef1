/** @module The store contract: agent tokens, kept hashed. */

export interface TokenRecord {
  name: string;
  servers: string[];
  /** Code tools the token may see and call (by name). */
  code_tools: string[];
  created_at: string;
  last_used_at?: string;
}

/**
 * Writes and listings are asynchronous (PostgreSQL fits behind it); `verify` stays synchronous
 * because it runs on every request: a PostgreSQL store answers it from memory, kept current by
 * change notices, and refuses every token while it cannot hear them.
 */
export interface TokenStore {
  /** Creates a token; the secret is returned once and only its hash is kept. */
  create(
    name: string,
    servers: string[],
    codeTools?: string[],
  ): Promise<{ token: string; record: TokenRecord }>;
  list(): Promise<TokenRecord[]>;
  /** True when a token of that name existed; this store refuses it from now on. */
  revoke(name: string): Promise<boolean>;
  /** The record of a valid token, or undefined. */
  verify(token: string): TokenRecord | undefined;
  close(): Promise<void>;
}

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
  logs: string[];
  /** What the execution or the call answered (JSON; a string with a marker when cut). */
  response: unknown;
  instance_id: string;
  /** The approval that let this call go out (tool_policy ask); null otherwise. */
  approval_id?: string | null;
  /** Present (true) only for a dry run (the playground's switch) and its stubbed calls. */
  dry_run?: true;
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

/** Activity history; asynchronous so PostgreSQL fits behind the same contract. */
export interface ActivityStore {
  /** Writes a batch in one transaction; `seq` orders a parent's children. */
  insert(records: ReadonlyArray<ActivityRecord & { seq: number }>): Promise<void>;
  /** Newest first. */
  list(query: ActivityQuery): Promise<{ items: ActivityRecord[]; total: number }>;
  get(id: string): Promise<ActivityRecord | undefined>;
  /** A record's children, in the order they were made. */
  children(parentId: string): Promise<ActivityRecord[]>;
  /** Deletes records older than `before` and the oldest beyond `maxRecords`; returns how many. */
  trim(before: string, maxRecords: number): Promise<number>;
  /**
   * Several instances on one database: calls `listener` with the records another instance
   * wrote, soon after it wrote them (absent where one instance owns the database).
   */
  onRemoteInsert?(listener: (records: ActivityRecord[]) => void): () => void;
  close(): Promise<void>;
}

/** The seven parameter types of a code tool (Vectoralix). */
export type CodeToolParamType =
  | 'string'
  | 'integer'
  | 'decimal'
  | 'date'
  | 'boolean'
  | 'array'
  | 'object';

export const CODE_TOOL_PARAM_TYPES: readonly CodeToolParamType[] = [
  'string',
  'integer',
  'decimal',
  'date',
  'boolean',
  'array',
  'object',
];

/** One parameter row; `default_value` is JSON (null = none). */
export interface CodeToolParam {
  name: string;
  description: string;
  type: CodeToolParamType;
  required: boolean;
  default_value: unknown;
}

/** The page-level fields, saved together. */
export interface CodeToolSettings {
  description: string;
  code: string;
  timeout_ms: number;
  memory_limit_mb: number;
  enabled: boolean;
  allowed_servers: string[];
}

export interface CodeTool extends CodeToolSettings {
  name: string;
  params: CodeToolParam[];
  /** The latest version number (0 before the first save). */
  version: number;
  created_at: string;
  updated_at: string;
}

/** An immutable snapshot of the page-level fields, made by each save. */
export interface CodeToolVersion extends CodeToolSettings {
  version: number;
  created_at: string;
}

export type ParamWrite = 'ok' | 'no_tool' | 'no_param' | 'exists';

/** Code tools; asynchronous so PostgreSQL fits behind the same contract. */
export interface CodeToolStore {
  /** Every tool with its params, by name. */
  list(): Promise<CodeTool[]>;
  get(name: string): Promise<CodeTool | undefined>;
  /**
   * Creates a tool with these settings and `params` (default none) in one transaction;
   * `versioned` records the settings as version 1, as a save would (else the tool is at
   * version 0). Undefined when the name is taken.
   */
  create(
    name: string,
    settings: CodeToolSettings,
    options?: { params?: readonly CodeToolParam[]; versioned?: boolean },
  ): Promise<CodeTool | undefined>;
  /** Saves the page-level fields together and records them as a new version; undefined when unknown. */
  save(name: string, settings: CodeToolSettings): Promise<CodeTool | undefined>;
  /** True when the tool existed. */
  remove(name: string): Promise<boolean>;
  /** Adds a param (`replacing` undefined) or replaces the row named `replacing`, keeping its place. */
  putParam(tool: string, param: CodeToolParam, replacing?: string): Promise<ParamWrite>;
  removeParam(tool: string, param: string): Promise<ParamWrite>;
  /** Newest first; undefined when the tool is unknown. */
  versions(name: string): Promise<CodeToolVersion[] | undefined>;
  version(name: string, version: number): Promise<CodeToolVersion | undefined>;
  /** Creates or replaces each tool with its params (one transaction); each gets a new version. */
  importTools(
    tools: ReadonlyArray<Omit<CodeTool, 'version' | 'created_at' | 'updated_at'>>,
  ): Promise<void>;
  /** Calls `listener` when another process changed the tools; returns the unsubscribe. */
  onExternalChange(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The fields of a tool's definition that are pinned (MCP `Tool`, as the upstream listed it). */
export interface PinnedDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** One pinned tool: the SHA-256 of its canonical definition, and the definition itself. */
export interface ToolPin {
  server: string;
  tool: string;
  /** Lowercase hex SHA-256 of the canonical JSON (keys sorted) of `definition`. */
  sha256: string;
  definition: PinnedDefinition;
  pinned_at: string;
}

/**
 * Tool-definition pins, per server and tool. A server is "seen" once its first tool list was
 * judged (tofu pins that list then); pins and seen servers survive restarts.
 */
export interface ToolPinStore {
  /** Every pin, and every server seen. */
  load(): Promise<{ pins: ToolPin[]; seen: string[] }>;
  /**
   * Marks `server` seen; when it was not seen before (on any instance), writes `pins` with it
   * and answers true. When it was, writes nothing and answers false.
   */
  firstSight(server: string, pins: readonly ToolPin[]): Promise<boolean>;
  /** Writes (or replaces) pins, marking their servers seen. */
  put(pins: readonly ToolPin[]): Promise<void>;
  /** Calls `listener` when another instance changed pins; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

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

/**
 * One upstream server's OAuth credentials (`codemux auth login`). The secret parts arrive
 * sealed (AES-256-GCM, util/secret-box.ts): the store keeps opaque text and never sees a token.
 */
export interface OAuthCredentials {
  server: string;
  /** The upstream URL the credentials were obtained for (another URL needs a new sign-in). */
  server_url: string;
  /** Sealed JSON of the client registered by Dynamic Client Registration; null when none. */
  client_sealed: string | null;
  /** Sealed JSON of the token set (access, refresh, ...); null when signed out. */
  tokens_sealed: string | null;
  /** The discovery state (protected resource and authorization server metadata): public, JSON. */
  discovery: unknown;
  /** When the access token expires (ISO 8601 UTC); null when unknown or signed out. */
  expires_at: string | null;
  /** The granted scopes, space-separated; null when unknown or signed out. */
  scope: string | null;
  /** Why the server needs sign-in again (a refused refresh, ...); null when nothing failed. */
  reason: string | null;
  /** ISO 8601 UTC of the last write. */
  updated_at: string;
}

/** The fields `OAuthStore.put` writes (every other one is kept). */
export type OAuthCredentialsWrite = Partial<Omit<OAuthCredentials, 'server' | 'updated_at'>>;

/** pending: waits for its callback; exchanging: its callback arrived (state used up). */
export type OAuthFlowStatus = 'pending' | 'exchanging' | 'completed' | 'failed' | 'expired';

/** One sign-in started by `codemux auth login` or the dashboard, until its callback. */
export interface OAuthFlow {
  /** Random, names the flow to whoever waits for it (never the `state` itself). */
  id: string;
  server: string;
  /** Lowercase hex SHA-256 of the `state` parameter; the state itself is never stored. */
  state_sha256: string;
  /** Sealed JSON of what its callback needs: the PKCE verifier, and what the sign-in found. */
  verifier_sealed: string;
  status: OAuthFlowStatus;
  /** For a failed flow: what failed (the authorization server's error and description). */
  error: string | null;
  created_at: string;
  expires_at: string;
  finished_at: string | null;
}

/** Upstream OAuth credentials and sign-in flows; asynchronous so PostgreSQL fits behind it. */
export interface OAuthStore {
  get(server: string): Promise<OAuthCredentials | undefined>;
  /** Every server's credentials, by server name. */
  list(): Promise<OAuthCredentials[]>;
  /** Writes `fields` (others kept); a missing row is created (`server_url` then required). */
  put(server: string, fields: OAuthCredentialsWrite): Promise<void>;
  /** Forgets the server's credentials and flows; true when there was a row. */
  delete(server: string): Promise<boolean>;
  createFlow(flow: OAuthFlow): Promise<void>;
  getFlow(id: string): Promise<OAuthFlow | undefined>;
  /**
   * Takes the flow whose state hashes to `stateSha256` if it is pending and not expired at
   * `now`, moving it to 'exchanging' atomically: a state is used once, on any instance.
   */
  claimFlow(stateSha256: string, now: string): Promise<OAuthFlow | undefined>;
  /** Ends a flow as completed, failed (with `error`) or expired. */
  finishFlow(
    id: string,
    status: 'completed' | 'failed' | 'expired',
    error: string | null,
    finishedAt: string,
  ): Promise<void>;
  /** Deletes flows created before `before` (ISO 8601); returns how many. */
  trimFlows(before: string): Promise<number>;
  /**
   * Runs `fn` while holding the server's refresh lock: on PostgreSQL an advisory lock, so two
   * instances never refresh the same token at once; in SQLite, one at a time in this process.
   */
  withRefreshLock<T>(server: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Calls `listener` with the server whose credentials or flows another instance wrote, soon
   * after (within a second); returns the unsubscribe. One database per gateway: never called.
   */
  onChange(listener: (server: string) => void): () => void;
}
