/** @module The resolved config: every field present, every default applied. */
import type { ApprovalChannel, PolicyAction, ToolPinning, TypecheckMode } from './defaults.ts';

export type UpstreamProtocol = 'stdio' | 'http' | 'sse';

/** One upstream MCP server, resolved. */
export interface ServerConfig {
  name: string;
  protocol: UpstreamProtocol;
  command?: string;
  args: string[];
  env: Record<string, string>;
  /** Absolute working directory for stdio servers (default: the config file's directory). */
  cwd: string;
  url?: string;
  headers: Record<string, string>;
  /** `oauth`: sign in to this (http/sse) server with OAuth; absent = only if it answers 401. */
  oauth?: UpstreamOAuthConfig;
  enabled: boolean;
  quarantined: boolean;
  /** Tools of this server nobody may see or call (`disabled_tools`): as if the server did not list them. */
  disabledTools: string[];
  /** Absent: no limit of its own. */
  maxConcurrentRequests?: number;
  /** Calls allowed to wait when maxConcurrentRequests are in flight; 0 = none wait. */
  queueSize: number;
  /** Calls in flight to this server across every instance sharing `database_url`; absent = no cluster limit. */
  clusterMaxConcurrentRequests?: number;
  /** Per-call upstream timeout; absent = bounded only by the execution's deadline. */
  callTimeoutMs?: number;
  /** How long the handshake (connect + initialize + tools/list) may take. */
  connectTimeoutMs: number;
}

/** A server's `oauth` settings (docs/oauth.md). */
export interface UpstreamOAuthConfig {
  /** A client registered beforehand; absent = Dynamic Client Registration. */
  clientId?: string;
  /** With clientId: a confidential client; without: a public one (PKCE only). */
  clientSecret?: string;
  scopes?: string[];
  /** Where the authorization server sends the browser back; default `http://<listen>/oauth/callback`. */
  redirectUri?: string;
  /** Refreshes of this server's token at least this far apart; default OAUTH_REFRESH_MIN_INTERVAL_MS. */
  refreshMinIntervalMs?: number;
}

/** The code_execution settings, all hot-reloadable except poolSize. */
export interface CodeExecutionConfig {
  enabled: boolean;
  timeoutMs: number;
  maxToolCalls: number;
  poolSize: number;
  maxParallel: number;
  memoryLimitMb: number;
  /** What may leave the sandbox: the answer, as its largest rendering takes it (docs/security.md). */
  maxOutputBytes: number;
  /** One upstream result entering the sandbox (call_tool, call_tools, tools.*), as JSON. */
  maxResultBytes: number;
  /** Tool, catalog and log calls one run may make; the next one ends it (RESOURCE_LIMIT_EXCEEDED). */
  maxHostCalls: number;
  /** Whether TypeScript programs (and JavaScript ones starting with `// @ts-check`) are type-checked first. */
  typecheck: TypecheckMode;
  /** Under `error`, how long a check may wait behind others to start; past it, TYPE_ERROR. */
  typecheckWaitMs: number;
  /** A run not finished by then answers `running` and goes on; 0 = never. */
  yieldMs: number;
  /** How long a finished run's answer stays readable by `execution_id`. */
  resultTtlMs: number;
  /** Runs alive at once on this instance, yielded ones included (QUEUE_FULL over it). */
  maxRunning: number;
  /** Runs are journaled and resumed after a stop; false keeps them in memory (INTERRUPTED). */
  durable: boolean;
}

/** Caps of code tools' own limits (`code_tools_max_timeout_ms`, `code_tools_max_memory_mb`). */
export interface CodeToolsConfig {
  maxTimeoutMs: number;
  maxMemoryMb: number;
}

/** The execute tool's limits (code mode). */
export interface CodeModeConfig {
  executionTimeoutMs: number;
  memoryLimitBytes: number;
  maxHostCalls: number;
  maxConcurrentExecutions: number;
  maxConcurrentToolCalls: number;
  maxOutputBytes: number;
}

/** One `tool_policy.rules` entry: `*` globs over the server and tool names. */
export interface PolicyRule {
  server: string;
  tool: string;
  action: PolicyAction;
}

/** `tool_policy`, resolved: every field set. */
export interface ToolPolicy {
  default: PolicyAction;
  destructive: PolicyAction;
  rules: PolicyRule[];
  approvalTimeoutMs: number;
  /** Where a held call may be decided; a channel not listed cannot decide. */
  approvalChannels: readonly ApprovalChannel[];
  /** One caller's approvals pending at once; the next gets QUEUE_FULL. */
  maxPendingPerCaller: number;
}

/** OpenTelemetry traces (`telemetry.otlp_endpoint` or the OTEL_EXPORTER_OTLP_* variables): on when present. */
export interface TracesConfig {
  /** The URL spans are sent to (OTLP/HTTP, `.../v1/traces`). */
  endpoint: string;
  /** Where the endpoint came from, for messages: `"telemetry.otlp_endpoint" in FILE` or the variable. */
  endpointSource: string;
  /** The share of new traces recorded (`telemetry.sample_ratio`, 0-1); a caller's sampled flag is kept. */
  sampleRatio: number;
  /** `service.name`: codemux, or OTEL_SERVICE_NAME. */
  serviceName: string;
}

export interface ToolkitConfig {
  name: string;
  description: string;
  instructions: string;
  tools: string[];
}

/** `telemetry`, resolved: every field set. */
export interface TelemetryConfig {
  /** `/metrics` served and counters kept (`telemetry.metrics`; read at start). */
  metrics: boolean;
  /** `/metrics` asks for the admin key (`telemetry.metrics_auth`, or a top-level `metrics_auth`). */
  metricsAuth: boolean;
}

export interface ResolvedConfig {
  /** Absolute path of the config file, or undefined for a config built in memory. */
  path?: string;
  /** Directory of the config file: base for relative paths, home of scripts/. */
  baseDir: string;
  listen: string;
  listenHost: string;
  listenPort: number;
  /** /mcp needs a key or token (default: only when listening beyond loopback). */
  requireMcpAuth: boolean;
  /**
   * `oauth_client_metadata_url`: codemux's client id (an HTTPS URL) for authorization servers that
   * take client ID metadata documents (SEP-991) instead of a registration; served at
   * OAUTH_CLIENT_METADATA_PATH.
   */
  oauthClientMetadataUrl?: string;
  dataDir: string;
  /** PostgreSQL for tokens, activity and code tools (`database_url` or $CODEMUX_DATABASE_URL); absent = SQLite in dataDir. */
  databaseUrl?: string;
  /** Where databaseUrl came from, for messages: `"database_url" in FILE` or `CODEMUX_DATABASE_URL`. */
  databaseUrlSource?: string;
  /** The largest HTTP request body on any route (413 beyond it). */
  maxRequestBytes: number;
  /** MCP sessions each endpoint set holds at once (a new one beyond gets 503). */
  maxMcpSessions: number;
  apiKey?: string;
  /** Where apiKey came from, for messages: `"api_key" in FILE` or `CODEMUX_API_KEY`. */
  apiKeySource?: string;
  codeExecution: CodeExecutionConfig;
  codeTools: CodeToolsConfig;
  codeMode: CodeModeConfig;
  toolkits: ToolkitConfig[];
  searchMaxResults: number;
  descriptionBudgetTokens: number;
  /** Tool-definition pinning (`tool_pinning`): tofu, strict or off. */
  toolPinning: ToolPinning;
  /** What each upstream call may do before dispatch (`tool_policy`). */
  toolPolicy: ToolPolicy;
  /** On SIGINT/SIGTERM, how long in-flight executions may still run (`shutdown_grace_ms`). */
  shutdownGraceMs: number;
  /** How long `codemux stdio`'s first tools/list waits for servers still connecting. */
  startupWaitMs: number;
  /** Activity history: on/off, retention. */
  activity: {
    enabled: boolean;
    retentionDays: number;
    maxRecords: number;
    /** Keys whose values the history stores as "[redacted]" (`activity_redact_keys`). */
    redactKeys: readonly string[];
  };
  /** `telemetry`: what codemux exports about itself (docs/observability.md). */
  telemetry: TelemetryConfig;
  /** This gateway's name in records and session ids (`instance_id`, generated when absent). */
  instanceId: string;
  /** OpenTelemetry traces; absent = off (nothing is loaded). */
  traces?: TracesConfig;
  servers: ServerConfig[];
  /** Unknown or ignored keys, one line each, for the commands to print on stderr. */
  warnings: string[];
  /** True when the file (at the default place) does not exist yet: an empty config. */
  missing?: boolean;
}
