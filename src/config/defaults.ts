/** @module Every default and range of the config, in one place (units in the names). */

export const DEFAULT_LISTEN = '127.0.0.1:8080';
export const DEFAULT_CONFIG_RELATIVE_PATH = '.codemux/mcp_config.json';

export const DEFAULT_CODE_EXECUTION_TIMEOUT_MS = 120_000;
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 600_000;

export const DEFAULT_MAX_TOOL_CALLS = 0;

export const DEFAULT_POOL_SIZE = 10;
export const MIN_POOL_SIZE = 1;
export const MAX_POOL_SIZE = 100;

export const DEFAULT_MAX_PARALLEL = 8;
export const MIN_MAX_PARALLEL = 1;
export const MAX_MAX_PARALLEL = 32;

export const DEFAULT_MEMORY_LIMIT_MB = 128;
export const MIN_MEMORY_LIMIT_MB = 1;
export const MAX_MEMORY_LIMIT_MB = 2048;

export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;
export const MIN_MAX_OUTPUT_BYTES = 1024;
export const MAX_MAX_OUTPUT_BYTES = 104_857_600;

/** One upstream result as it enters the sandbox (code_execution dialect), as JSON (`code_execution_max_result_bytes`). */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1_048_576;
export const MIN_MAX_RESULT_BYTES = 1024;
export const MAX_MAX_RESULT_BYTES = 64 * 1_048_576;

/** code_execution: host calls (tool, catalog and log calls) one run may make; the next ends it. */
export const DEFAULT_MAX_HOST_CALLS = 10_000;
/** `code_execution_typecheck` / `options.typecheck`: whether a TypeScript program is type-checked before it runs. */
export const TYPECHECK_MODES = ['off', 'warn', 'error'] as const;
export type TypecheckMode = (typeof TYPECHECK_MODES)[number];
export const DEFAULT_TYPECHECK_MODE: TypecheckMode = 'warn';
/**
 * `code_execution_typecheck_wait_ms`: under `error`, how long a check may wait behind other
 * checks before it starts; past it the run fails with TYPE_ERROR (0: it never waits).
 */
export const DEFAULT_TYPECHECK_WAIT_MS = 5_000;
export const MAX_TYPECHECK_WAIT_MS = 600_000;
/**
 * `code_execution_yield_ms`: a run not finished by then answers `running` with its execution
 * id and goes on (docs/long-runs.md); 0 = never yield.
 */
export const DEFAULT_YIELD_MS = 30_000;
export const MIN_YIELD_MS = 1_000;
export const MAX_YIELD_MS = 600_000;
/** The longest `wait_ms` (and code mode's `timeout_ms` when continuing) a wait may ask for. */
export const MAX_WAIT_MS = 600_000;
/** `code_execution_result_ttl_ms`: how long a finished run's answer stays readable. */
export const DEFAULT_RESULT_TTL_MS = 3_600_000;
export const MIN_RESULT_TTL_MS = 60_000;
export const MAX_RESULT_TTL_MS = 604_800_000;
/** `code_execution_max_running`: runs alive at once on one instance, yielded ones included. */
export const DEFAULT_MAX_RUNNING = 100;
export const MIN_MAX_RUNNING = 1;
export const MAX_MAX_RUNNING = 10_000;
export const MIN_MAX_HOST_CALLS = 1;
export const MAX_MAX_HOST_CALLS = 1_000_000;

export const MAX_CONCURRENT_REQUESTS_LIMIT = 10_000;
export const MAX_QUEUE_SIZE = 100_000;
/** The most tool names one server's `disabled_tools` may list. */
export const MAX_DISABLED_TOOLS = 10_000;

/** HTTP request bodies on every route (max_request_bytes): default and range. */
export const DEFAULT_MAX_REQUEST_BYTES = 4 * 1_048_576;
export const MIN_MAX_REQUEST_BYTES = 1024;
export const MAX_MAX_REQUEST_BYTES = 1024 * 1_048_576;

/** MCP sessions one endpoint set (/mcp, /mcp/codemode) holds at once (max_mcp_sessions). */
export const DEFAULT_MAX_MCP_SESSIONS = 1000;
export const MIN_MAX_MCP_SESSIONS = 1;
export const MAX_MAX_MCP_SESSIONS = 100_000;

/** Sources (inline or stored) larger than this are refused before anything runs. */
export const MAX_SOURCE_BYTES = 262_144;

/** Console capture: lines kept, and bytes per line before the cut marker. */
export const MAX_LOG_LINES = 128;
export const MAX_LOG_LINE_BYTES = 4096;

/** How long a connect (spawn + initialize + tools/list) may take before the server counts as failed (`connect_timeout_ms`). */
export const UPSTREAM_CONNECT_TIMEOUT_MS = 30_000;
export const MIN_CONNECT_TIMEOUT_MS = 100;
export const MAX_CONNECT_TIMEOUT_MS = 600_000;
/**
 * How long a stdio server may stay silent on the version probe (`server/discover`) before it
 * counts as a 2025 server (some never answer a request before `initialize`); at most half the
 * connect timeout. On HTTP silence is an outage, so there the connect timeout alone applies.
 */
export const UPSTREAM_STDIO_PROBE_TIMEOUT_MS = 5_000;

/** Ending a stdio server: after closing its stdin, wait this long before SIGTERM; then as long again before SIGKILL. */
export const UPSTREAM_STOP_STDIN_GRACE_MS = 2_000;
export const UPSTREAM_STOP_TERM_GRACE_MS = 2_000;
/**
 * When the whole gateway stops (after shutdown_grace_ms), every stdio server at once: SIGTERM
 * this long after its stdin closes, SIGKILL this long after that; shutdown stays within the
 * grace + 2 s even when a server ignores SIGTERM.
 */
export const SHUTDOWN_STOP_STDIN_GRACE_MS = 250;
export const SHUTDOWN_STOP_TERM_GRACE_MS = 1_000;

/** An HTTP/SSE upstream opens a new session after this many transport failures in a row (5xx, broken streams). */
export const UPSTREAM_FAILURES_BEFORE_RECONNECT = 3;

/** On SIGINT/SIGTERM, in-flight executions may finish within this grace (`shutdown_grace_ms`). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;
export const MAX_SHUTDOWN_GRACE_MS = 600_000;
/** Activity history: kept this many days and at most this many records (trimmed in the background). */
export const DEFAULT_ACTIVITY_RETENTION_DAYS = 30;
export const MAX_ACTIVITY_RETENTION_DAYS = 36_500;
export const DEFAULT_ACTIVITY_MAX_RECORDS = 100_000;
export const MIN_ACTIVITY_MAX_RECORDS = 100;
export const MAX_ACTIVITY_MAX_RECORDS = 100_000_000;
/**
 * Activity history: values under keys that look like these are stored as "[redacted]" (call
 * arguments, an execution's input); `activity_redact_keys` replaces the list.
 */
export const DEFAULT_ACTIVITY_REDACT_KEYS: readonly string[] = [
  'password',
  'token',
  'secret',
  'api_key',
  'authorization',
];
/** `activity_redact_keys`: at most this many names, each at most this many characters. */
export const MAX_ACTIVITY_REDACT_KEYS = 256;
export const MAX_ACTIVITY_REDACT_KEY_CHARS = 128;

/** This gateway's name in a cluster (session id prefix, activity records); generated when absent. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** `codemux stdio`: how long the first tools/list waits for servers still connecting. */
export const DEFAULT_STARTUP_WAIT_MS = 5_000;
export const MAX_STARTUP_WAIT_MS = 600_000;

/** After a failed start, calls within this window get the cached failure instead of a new spawn. */
export const UPSTREAM_RETRY_AFTER_MS = 2_000;

/** Server names, as DESIGN.md fixes them. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** catalog.tools.search: default and cap of `limit` (0 in the config means this default). */
export const DEFAULT_SEARCH_MAX_RESULTS = 5;
export const MAX_SEARCH_RESULTS = 100;

/** code_execution's description lists every tool while it fits this many tokens (4 characters a token). */
export const DEFAULT_DESCRIPTION_BUDGET_TOKENS = 1000;
export const MAX_DESCRIPTION_BUDGET_TOKENS = 100_000;

/** The execute tool (code mode, Arion's dialect): its limits, set under `code_mode` (0 = default). */
export const CODE_MODE_DEFAULTS = {
  executionTimeoutMs: 30_000,
  memoryLimitBytes: 64 * 1_048_576,
  maxHostCalls: 100,
  maxConcurrentExecutions: 32,
  maxConcurrentToolCalls: 8,
  maxOutputBytes: 1_048_576,
} as const;
/** Guest CPU per execute run, not counting waits on tool and catalog calls (fixed, as in Arion). */
export const CODE_MODE_COMPUTE_MS = 5_000;
export const MAX_CODE_MODE_MEMORY_BYTES = 2048 * 1_048_576;

/** Upstream answers: a result (or any message's params) nested deeper than this is refused. */
export const MAX_UPSTREAM_RESULT_DEPTH = 1000;
/**
 * Upstream answers: one JSON-RPC message (a stdio line, an HTTP body or event) larger than the
 * largest result bound in force (code_execution_max_result_bytes, code_mode.max_output_bytes;
 * at least this floor, which tools/list answers need) plus the headroom is refused.
 */
export const MIN_UPSTREAM_MESSAGE_BYTES = 16 * 1_048_576;
/** Room around a result in its JSON-RPC message (`{"jsonrpc","id","result"}`, escapes as sent). */
export const UPSTREAM_MESSAGE_HEADROOM_BYTES = 1_048_576;
/**
 * A stdio server's line (one message) once begun must go on: no byte for this long before its
 * newline, and the server is taken as wedged mid-message (the stream cannot be resynchronised):
 * the calls waiting on it fail with UPSTREAM_ERROR and the server is restarted.
 */
export const UPSTREAM_LINE_STALL_MS = 1_000;
/** ...and end within this long of its first byte, however it trickles (17 MiB takes well under a second). */
export const UPSTREAM_LINE_MAX_MS = 10_000;
/**
 * call_tools: the results of one batch enter the guest as one JSON text, which takes several
 * times its size while it is decoded; together they may use this share of the sandbox's memory
 * (or one code_execution_max_result_bytes, when larger).
 */
export const BATCH_RESULTS_MEMORY_DIVISOR = 4;
/**
 * Bounds on upstream JSON Schemas (tools/list is untrusted input). A schema over any of
 * these is replaced by a permissive object schema whose description says why, so nothing
 * downstream (catalog, describe, validation) walks it.
 */
export const MAX_SCHEMA_CHARS = 262_144;
export const MAX_SCHEMA_DEPTH = 64;
export const MAX_SCHEMA_NODES = 20_000;
/**
 * ajv compiles a schema into code on the main thread (about 0.1-0.3 ms per property);
 * schemas larger than this many JSON values are not checked by codemux (the upstream checks).
 */
export const MAX_VALIDATED_SCHEMA_NODES = 1_000;
/** Compiled validators kept (least recently used evicted first). */
export const MAX_CACHED_VALIDATORS = 256;
/** catalog.tools.search: longest query accepted. */
export const MAX_SEARCH_QUERY_CHARS = 512;
/** catalog.tools.describe: the TypeScript signature is cut (remaining types `unknown`) past this. */
export const MAX_TYPESCRIPT_CHARS = 16_384;
/** Code tools (the Vectoralix dialect): per-tool defaults, and the caps a tool's limits may reach. */
export const DEFAULT_CODE_TOOL_TIMEOUT_MS = 5_000;
export const DEFAULT_CODE_TOOL_MEMORY_MB = 128;
export const DEFAULT_CODE_TOOLS_MAX_TIMEOUT_MS = 60_000;
export const DEFAULT_CODE_TOOLS_MAX_MEMORY_MB = 512;
/** Running on several machines: `database_url` selects PostgreSQL. */
export const DATABASE_URL_PATTERN = /^postgres(ql)?:\/\/\S+$/;
/** `cluster_max_concurrent_requests`: calls in flight to one server across every instance. */
export const MAX_CLUSTER_CONCURRENT_REQUESTS = 1_000;

/** `tool_pinning`: pin on first sight and hold changes (tofu), hold every tool until approved (strict), or none. */
export const TOOL_PINNING_MODES = ['tofu', 'strict', 'off'] as const;
export type ToolPinning = (typeof TOOL_PINNING_MODES)[number];
export const DEFAULT_TOOL_PINNING: ToolPinning = 'tofu';

/** `tool_policy`: what happens to a call before dispatch (allow it, hold it for a person, refuse it). */
export const POLICY_ACTIONS = ['allow', 'ask', 'deny'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];
export const DEFAULT_POLICY_ACTION: PolicyAction = 'allow';
/** Tools annotated `destructiveHint: true` (and not `readOnlyHint: true`). */
export const DEFAULT_DESTRUCTIVE_ACTION: PolicyAction = 'ask';
export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;
export const MIN_APPROVAL_TIMEOUT_MS = 1_000;
export const MAX_APPROVAL_TIMEOUT_MS = 86_400_000;
/** Rules a policy may hold (first match wins; checked on every call). */
export const MAX_POLICY_RULES = 1_000;
/** Longest glob of a rule's `server` or `tool`. */
export const MAX_POLICY_GLOB_CHARS = 200;
/** Approvals pending at once on one gateway; the next `ask` call is refused (QUEUE_FULL). */
export const MAX_PENDING_APPROVALS = 100;
/** `tool_policy.approval_channels`: where a held call may be decided (default: all four). */
export const APPROVAL_CHANNELS = ['elicitation', 'rest', 'dashboard', 'cli'] as const;
export type ApprovalChannel = (typeof APPROVAL_CHANNELS)[number];
/** `tool_policy.max_pending_per_caller`: one caller's pending approvals at once (the rest see QUEUE_FULL). */
export const DEFAULT_MAX_PENDING_PER_CALLER = 20;
export const MIN_MAX_PENDING_PER_CALLER = 1;
export const MAX_MAX_PENDING_PER_CALLER = MAX_PENDING_APPROVALS;
/** Decided and expired approvals kept in the store this long. */
export const APPROVAL_RETENTION_DAYS = 30;

/** Upstream OAuth (docs/oauth.md): the gateway's callback path, and how long a sign-in may take. */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';
export const OAUTH_FLOW_TTL_MS = 10 * 60_000;
/** Where codemux serves its OAuth client metadata document (SEP-991) when it has one. */
export const OAUTH_CLIENT_METADATA_PATH = '/oauth/client-metadata.json';
/** An access token is refreshed this long before it expires (at most a fifth of its life). */
export const OAUTH_REFRESH_LEAD_MS = 60_000;
/**
 * One server's token refreshes are at least this far apart (per instance), whatever the token's
 * lifetime: an authorization server issuing `expires_in: 0` or 1 is not asked again at once.
 * `oauth.refresh_min_interval_ms` changes it for one server (within the bounds below).
 */
export const OAUTH_REFRESH_MIN_INTERVAL_MS = 30_000;
export const MIN_OAUTH_REFRESH_INTERVAL_MS = 1_000;
export const MAX_OAUTH_REFRESH_INTERVAL_MS = 3_600_000;
/** After failed refreshes (network, 5xx) the wait doubles from the interval, up to this. */
export const OAUTH_REFRESH_BACKOFF_MAX_MS = 15 * 60_000;
/**
 * How long a 2026-07-28 client may reuse codemux's tools/list (its `ttlMs`, with `cacheScope:
 * "private"`: the list depends on the caller's token). A change is announced at once to clients
 * listening on `subscriptions/listen`; the others see it within this time.
 */
export const TOOLS_LIST_TTL_MS = 60_000;

/**
 * The most entries one run's journal (durable runs, issue 36) may hold; an append past it is
 * refused with JOURNAL_FULL and the run fails. Room for the default 10,000 host calls (a call
 * and its answer each) and the clock and random readings between them.
 */
export const MAX_JOURNAL_ENTRIES = 100_000;
/**
 * The most bytes (UTF-8 of each entry's kind and JSON data) one run's journal may hold; an
 * append past it is refused with JOURNAL_FULL. Four results of the default
 * code_execution_max_result_bytes.
 */
export const MAX_JOURNAL_BYTES = 64 * 1_048_576;

/** `service.name` of the spans codemux exports (OTEL_SERVICE_NAME overrides it). */
export const DEFAULT_TRACE_SERVICE_NAME = 'codemux';
/** `telemetry.sample_ratio`: the share of new traces recorded (a caller's sampled flag is kept). */
export const DEFAULT_TRACE_SAMPLE_RATIO = 1;
/** Where an OTLP/HTTP collector takes spans, below its base URL (`telemetry.otlp_endpoint`). */
export const OTLP_TRACES_PATH = '/v1/traces';
/**
 * Ended spans waiting for export at most: past it a span is dropped and counted, so an
 * unreachable collector costs a bounded amount of memory and never slows a request.
 */
export const TRACE_QUEUE_SPANS = 2_048;
/** Spans sent in one OTLP export request at most. */
export const TRACE_BATCH_SPANS = 512;
/** How long ended spans wait before an export is sent anyway. */
export const TRACE_EXPORT_DELAY_MS = 1_000;
/** One OTLP export request may take this long before it fails (its spans are dropped and counted). */
export const TRACE_EXPORT_TIMEOUT_MS = 10_000;
/** On shutdown, how long the last spans may take to be sent before the process exits anyway. */
export const TRACE_FLUSH_MS = 2_000;
