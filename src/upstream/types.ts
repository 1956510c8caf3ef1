/** @module The upstream contract: one MCP server connection, and the outcome of a call. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TraceSpan } from '../telemetry/index.ts';

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** MCP tool annotations (destructiveHint, readOnlyHint, ...), as the server listed them. */
  annotations?: Record<string, unknown>;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * The span the call is made under: the registry starts the call's CLIENT span as its child,
   * and the connection carries that span's context to the server (`_meta`, HTTP headers).
   */
  span?: TraceSpan;
  /**
   * Answers the server when it asks its client for input during this call (elicitation, or a
   * 2026-07-28 `input_required` result). Time spent waiting on it does not count against
   * `timeoutMs`. Without it, the connection's `onInput` answers.
   */
  askInput?: AskInput;
}

/** A form an upstream asks its client to fill (`elicitation/create`, form mode). */
export interface InputAsk {
  message: string;
  /** A flat object schema of primitive fields (the MCP elicitation subset), as the server sent it. */
  requestedSchema: Record<string, unknown>;
}

/** One field's value in an accepted form (MCP elicitation's primitive types). */
export type InputValue = string | number | boolean | string[];

/** The answer to an InputAsk, as MCP's ElicitResult carries it. */
export type InputReply =
  | { action: 'accept'; content: Record<string, InputValue> }
  | { action: 'decline' }
  | { action: 'cancel' };

/** Answers one InputAsk; `signal` aborts when the server or the call no longer waits. Never throws. */
export type AskInput = (ask: InputAsk, signal: AbortSignal) => Promise<InputReply>;

/**
 * Codes of a failed call that never produced a CallToolResult. SERVER_NOT_FOUND and
 * TOOL_NOT_FOUND stay inside the gateway: each guest dialect says them in its own words
 * (execution/envelopes.ts).
 */
export const CALL_FAILURE_CODES = [
  'UPSTREAM_ERROR',
  'SERVER_UNAVAILABLE',
  'QUEUE_FULL',
  'UPSTREAM_TIMEOUT',
  /** The result broke the tool's own output schema (the SDK client checks it). */
  'INVALID_OUTPUT',
  /** The result is larger than the gateway accepts from one call (see result-bounds.ts). */
  'RESULT_TOO_LARGE',
  /** The tool's definition is held by tool pinning (never sent). */
  'TOOL_CHANGED',
  /** No configured server has the name (never sent). */
  'SERVER_NOT_FOUND',
  /** The server does not list the tool, or its `disabled_tools` hides it (never sent). */
  'TOOL_NOT_FOUND',
] as const;

export type CallFailureCode = (typeof CALL_FAILURE_CODES)[number];

/** A call either reached the tool (even one answering isError) or failed with a code. */
export type CallOutcome =
  | { ok: true; result: CallToolResult }
  | { ok: false; code: CallFailureCode; message: string };

/** An upstream's MCP log notification: its level, optional logger name and data. */
export interface UpstreamLog {
  level: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
  logger?: string;
  data: unknown;
}

/** One connection to one upstream server; start() and stop() are idempotent. */
export interface UpstreamConnection {
  readonly name: string;
  /** Called when an established connection drops (the child exited or closed stdout, the HTTP session was lost), with why. */
  onClose?: (reason: string) => void;
  /** Called after the server announced tools/list_changed and the list was read again. */
  onToolsChanged?: () => void;
  /** Called with each `notifications/message` (a log line) the server sends. */
  onLog?: (message: UpstreamLog) => void;
  /** Called with each line a stdio child writes to stderr. */
  onStderr?: (line: string) => void;
  /**
   * Answers the server's requests for input that no call of it owns (several calls in flight on
   * a transport that does not say which one asked); without it they are declined.
   */
  onInput?: AskInput;
  /** Connects and lists tools; rejects with a message that includes the server's stderr tail. */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly connected: boolean;
  /** The MCP version the last connect negotiated (2026-07-28, 2025-11-25, ...); unset before one. */
  readonly protocolVersion?: string;
  tools(): readonly ToolInfo[];
  /**
   * Set from a tools/list_changed notice until the new list is read: a call waits for it, so
   * it is judged (pinning) against the tools as they are now, never the list before the change.
   */
  readonly relisting?: Promise<void>;
  /** Rejects on transport errors, timeouts and cancellation. */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult>;
}

/** Where a server stands, as `GET /api/v1/servers` and `codemux servers list` show it. */
export type ServerState =
  | 'idle'
  | 'connecting'
  | 'ready'
  | 'failed'
  | 'disabled'
  | 'quarantined'
  /** An http/sse server waiting for an OAuth sign-in (`codemux auth login`). */
  | 'needs_auth';

export interface ServerStatus {
  name: string;
  protocol: string;
  state: ServerState;
  tools: number;
  last_error?: string;
  /** The MCP version negotiated with the server at its last connect (2026-07-28, 2025-11-25, ...). */
  protocol_version?: string;
}

/**
 * Cluster-wide call slots per server (`cluster_max_concurrent_requests`), shared by every
 * instance on one database. `acquire` never throws.
 */
export interface ClusterSlots {
  /**
   * Takes one of `limit` slots of `server`, waiting while `signal` allows; `queue_full` when
   * `queueSize` calls of this instance already wait for one; `unavailable` when the database
   * cannot be asked.
   */
  acquire(
    server: string,
    limit: number,
    options: { queueSize: number; signal?: AbortSignal },
  ): Promise<
    | { ok: true; release: () => void }
    | { ok: false; reason: 'queue_full' | 'aborted' | 'unavailable'; message: string }
  >;
  close(): Promise<void>;
}
