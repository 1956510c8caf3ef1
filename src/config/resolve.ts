/** @module User config (all optional) -> resolved config, with errors that name the field. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../errors/index.ts';
import {
  APPROVAL_CHANNELS,
  CODE_MODE_DEFAULTS,
  DEFAULT_ACTIVITY_MAX_RECORDS,
  DEFAULT_ACTIVITY_REDACT_KEYS,
  DEFAULT_ACTIVITY_RETENTION_DAYS,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_CODE_EXECUTION_TIMEOUT_MS,
  DEFAULT_CODE_TOOLS_MAX_MEMORY_MB,
  DEFAULT_CODE_TOOLS_MAX_TIMEOUT_MS,
  DEFAULT_DESCRIPTION_BUDGET_TOKENS,
  DEFAULT_DESTRUCTIVE_ACTION,
  DEFAULT_LISTEN,
  DEFAULT_MAX_HOST_CALLS,
  DEFAULT_MAX_MCP_SESSIONS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_PARALLEL,
  DEFAULT_MAX_PENDING_PER_CALLER,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_RUNNING,
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_MEMORY_LIMIT_MB,
  DEFAULT_POLICY_ACTION,
  DEFAULT_POOL_SIZE,
  DEFAULT_RESULT_TTL_MS,
  DEFAULT_SEARCH_MAX_RESULTS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_STARTUP_WAIT_MS,
  DEFAULT_TOOL_PINNING,
  DEFAULT_TYPECHECK_MODE,
  DEFAULT_TYPECHECK_WAIT_MS,
  DEFAULT_YIELD_MS,
  OAUTH_CALLBACK_PATH,
  UPSTREAM_CONNECT_TIMEOUT_MS,
} from './defaults.ts';
import { CONFIG_DIR_VARIABLE, expandServerEnv, expandTopLevelEnv } from './expand-env.ts';
import { type UserServerConfig, userConfigSchema, userServerSchema } from './schema.ts';
import { resolveTraces } from './traces-config.ts';
import type {
  ResolvedConfig,
  ServerConfig,
  UpstreamOAuthConfig,
  UpstreamProtocol,
} from './types.ts';
import { unknownServerKeys, unknownTopLevelKeys } from './unknown-keys.ts';

/** One per process: a reloaded config keeps the instance's name. */
const GENERATED_INSTANCE_ID = `i${randomBytes(4).toString('hex')}`;

/** What resolving a server needs besides its entry. */
interface ServerContext {
  baseDir: string;
  source: string;
  env: NodeJS.ProcessEnv;
  connectTimeoutMs: number;
}

/** Formats a zod path the way a user reads it: `mcpServers[2].name`. */
function fieldPath(prefix: string, issuePath: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of issuePath) {
    out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  }
  return out;
}

function fail(prefix: string, error: z.ZodError, source: string): never {
  const issue = error.issues[0]!;
  const field = fieldPath(prefix, issue.path);
  throw new ConfigError(`${source}: field "${field}" ${issue.message}`, field);
}

function inferProtocol(server: UserServerConfig, field: string, source: string): UpstreamProtocol {
  const declared = server.protocol ?? server.type;
  if (declared === 'streamable-http') return 'http';
  if (declared) return declared;
  if (server.command) return 'stdio';
  if (server.url) return 'http';
  throw new ConfigError(
    `${source}: field "${field}" needs "command" (a stdio server) or "url" (an http/sse server)`,
    field,
  );
}

function resolveServer(
  raw: Record<string, unknown>,
  field: string,
  context: ServerContext,
): ServerConfig {
  const { baseDir, source } = context;
  const parsed = userServerSchema.safeParse(expandServerEnv(raw, field, context.env, source));
  if (!parsed.success) fail(field, parsed.error, source);
  const server = parsed.data;
  if (server.command !== undefined && server.url !== undefined) {
    throw new ConfigError(
      `${source}: server "${server.name}" (${field}) has both "command" and "url"; keep "command" for a stdio server or "url" for an http/sse server`,
      field,
    );
  }
  const protocol = inferProtocol(server, field, source);
  if (protocol === 'stdio' && !server.command) {
    throw new ConfigError(
      `${source}: field "${field}.command" is required for a stdio server`,
      `${field}.command`,
    );
  }
  if (protocol !== 'stdio' && !server.url) {
    throw new ConfigError(
      `${source}: field "${field}.url" is required for an ${protocol} server`,
      `${field}.url`,
    );
  }
  return {
    name: server.name!,
    protocol,
    command: server.command,
    args: server.args ?? [],
    env: server.env ?? {},
    cwd: path.resolve(baseDir, server.cwd ?? '.'),
    url: server.url,
    headers: server.headers ?? {},
    ...(server.oauth ? { oauth: resolveOAuth(server.oauth, protocol, field, source) } : {}),
    enabled: server.enabled ?? true,
    quarantined: server.quarantined ?? false,
    disabledTools: [...new Set(server.disabled_tools ?? [])],
    maxConcurrentRequests: server.max_concurrent_requests,
    queueSize: server.queue_size ?? 0,
    clusterMaxConcurrentRequests: server.cluster_max_concurrent_requests,
    callTimeoutMs: server.call_timeout_ms,
    connectTimeoutMs: server.connect_timeout_ms ?? context.connectTimeoutMs,
  };
}

function resolveOAuth(
  oauth: NonNullable<UserServerConfig['oauth']>,
  protocol: UpstreamProtocol,
  field: string,
  source: string,
): UpstreamOAuthConfig {
  if (protocol === 'stdio') {
    throw new ConfigError(
      `${source}: field "${field}.oauth" applies to http and sse servers only; a stdio server gets its credentials through "env"`,
      `${field}.oauth`,
    );
  }
  if (oauth.client_secret !== undefined && oauth.client_id === undefined) {
    throw new ConfigError(
      `${source}: field "${field}.oauth.client_secret" needs "client_id" beside it (or leave both out to register by DCR)`,
      `${field}.oauth.client_secret`,
    );
  }
  if (
    oauth.redirect_uri !== undefined &&
    !new URL(oauth.redirect_uri).pathname.endsWith(OAUTH_CALLBACK_PATH)
  ) {
    throw new ConfigError(
      `${source}: field "${field}.oauth.redirect_uri" must end in ${OAUTH_CALLBACK_PATH} (the gateway's callback, as your proxy forwards it), like "https://codemux.example.com${OAUTH_CALLBACK_PATH}"`,
      `${field}.oauth.redirect_uri`,
    );
  }
  return {
    ...(oauth.client_id === undefined ? {} : { clientId: oauth.client_id }),
    ...(oauth.client_secret === undefined ? {} : { clientSecret: oauth.client_secret }),
    ...(oauth.scopes === undefined ? {} : { scopes: oauth.scopes }),
    ...(oauth.redirect_uri === undefined ? {} : { redirectUri: oauth.redirect_uri }),
    ...(oauth.refresh_min_interval_ms === undefined
      ? {}
      : { refreshMinIntervalMs: oauth.refresh_min_interval_ms }),
  };
}

/** The entries of `mcpServers` in either shape, each with its field path (the object shape's key as `name`). */
function serverEntries(raw: unknown): Array<{ raw: unknown; field: string }> {
  if (Array.isArray(raw)) return raw.map((entry, i) => ({ raw: entry, field: `mcpServers[${i}]` }));
  if (!raw || typeof raw !== 'object') return [];
  return Object.entries(raw as Record<string, unknown>).map(([name, entry]) => ({
    raw:
      entry && typeof entry === 'object' && !Array.isArray(entry)
        ? { name, ...(entry as object) }
        : entry,
    field: `mcpServers.${name}`,
  }));
}

/** Every unknown or ignored key of the document, the servers' included: found before any error. */
function unknownKeys(raw: Record<string, unknown>): string[] {
  const warnings = unknownTopLevelKeys(raw, userConfigSchema);
  for (const { raw: entry, field } of serverEntries(raw.mcpServers)) {
    if (entry && typeof entry === 'object' && !Array.isArray(entry))
      warnings.push(...unknownServerKeys(entry, userServerSchema, field));
  }
  return warnings;
}

function resolveServers(raw: unknown, context: ServerContext): ServerConfig[] {
  const { source } = context;
  const servers: ServerConfig[] = [];
  const seen = new Set<string>();
  for (const { raw: entry, field } of serverEntries(raw)) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new ConfigError(`${source}: field "${field}" must be an object`, field);
    }
    if ((entry as { name?: unknown }).name === undefined) {
      throw new ConfigError(`${source}: field "${field}.name" is required`, `${field}.name`);
    }
    const server = resolveServer(entry as Record<string, unknown>, field, context);
    if (seen.has(server.name)) {
      throw new ConfigError(
        `${source}: field "${field}.name": the server name "${server.name}" is used twice`,
        `${field}.name`,
      );
    }
    seen.add(server.name);
    servers.push(server);
  }
  return servers;
}

function parseListen(listen: string, source: string): { host: string; port: number } {
  const at = listen.lastIndexOf(':');
  const host = listen.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(listen.slice(at + 1));
  if (!(port >= 1 && port <= 65535)) {
    throw new ConfigError(`${source}: field "listen" has port ${port}; use 1-65535`, 'listen');
  }
  return { host, port };
}

/** An IPv4 literal in 127.0.0.0/8: four decimal octets, never a name that merely starts with `127.`. */
const LOOPBACK_IPV4 =
  /^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/;

/** True for addresses only this machine can reach: `localhost`, `::1` and 127.x.y.z literals. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || LOOPBACK_IPV4.test(host);
}

type ResolveOptions = { path?: string; baseDir: string; source?: string; env?: NodeJS.ProcessEnv };

/**
 * Validates a parsed config document and applies every default. An invalid one throws a
 * ConfigError that carries the document's unknown keys too (a misspelt key is often the cause).
 */
export function resolveConfig(raw: unknown, options: ResolveOptions): ResolvedConfig {
  const source = options.source ?? options.path ?? 'config';
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${source}: the config must be a JSON object`);
  }
  const warnings = unknownKeys(raw as Record<string, unknown>).map((line) => `${source}: ${line}`);
  try {
    return { ...resolveKnown(raw, options, source), warnings };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.message, error.field, warnings);
  }
}

function resolveKnown(
  raw: object,
  options: ResolveOptions,
  source: string,
): Omit<ResolvedConfig, 'warnings'> {
  // The config's own directory is a variable too, so a server can be handed an absolute path.
  const env = { ...(options.env ?? process.env), [CONFIG_DIR_VARIABLE]: options.baseDir };
  const expanded = expandTopLevelEnv(raw as Record<string, unknown>, env, source);
  const parsed = userConfigSchema.safeParse(expanded);
  if (!parsed.success) fail('', parsed.error, source);
  const user = parsed.data;
  const servers = resolveServers(user.mcpServers, {
    baseDir: options.baseDir,
    source,
    env,
    connectTimeoutMs: user.connect_timeout_ms ?? UPSTREAM_CONNECT_TIMEOUT_MS,
  });
  const listen = parseListen(user.listen ?? DEFAULT_LISTEN, source);
  return {
    path: options.path,
    baseDir: options.baseDir,
    listen: user.listen ?? DEFAULT_LISTEN,
    listenHost: listen.host,
    listenPort: listen.port,
    requireMcpAuth: user.require_mcp_auth ?? !isLoopback(listen.host),
    ...(user.oauth_client_metadata_url === undefined
      ? {}
      : { oauthClientMetadataUrl: user.oauth_client_metadata_url }),
    dataDir: path.resolve(options.baseDir, user.data_dir ?? 'data'),
    databaseUrl: user.database_url,
    databaseUrlSource: user.database_url ? `"database_url" in ${source}` : undefined,
    maxRequestBytes: user.max_request_bytes ?? DEFAULT_MAX_REQUEST_BYTES,
    maxMcpSessions: user.max_mcp_sessions ?? DEFAULT_MAX_MCP_SESSIONS,
    apiKey: user.api_key,
    codeExecution: {
      enabled: user.enable_code_execution ?? true,
      timeoutMs: user.code_execution_timeout_ms ?? DEFAULT_CODE_EXECUTION_TIMEOUT_MS,
      maxToolCalls: user.code_execution_max_tool_calls ?? DEFAULT_MAX_TOOL_CALLS,
      poolSize: user.code_execution_pool_size ?? DEFAULT_POOL_SIZE,
      maxParallel: user.code_execution_max_parallel ?? DEFAULT_MAX_PARALLEL,
      memoryLimitMb: user.code_execution_memory_limit_mb ?? DEFAULT_MEMORY_LIMIT_MB,
      maxOutputBytes: user.code_execution_max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      maxResultBytes: user.code_execution_max_result_bytes ?? DEFAULT_MAX_RESULT_BYTES,
      maxHostCalls: user.code_execution_max_host_calls ?? DEFAULT_MAX_HOST_CALLS,
      typecheck: user.code_execution_typecheck ?? DEFAULT_TYPECHECK_MODE,
      typecheckWaitMs: user.code_execution_typecheck_wait_ms ?? DEFAULT_TYPECHECK_WAIT_MS,
      yieldMs: user.code_execution_yield_ms ?? DEFAULT_YIELD_MS,
      resultTtlMs: user.code_execution_result_ttl_ms ?? DEFAULT_RESULT_TTL_MS,
      maxRunning: user.code_execution_max_running ?? DEFAULT_MAX_RUNNING,
      durable: user.code_execution_durable ?? true,
    },
    codeTools: {
      maxTimeoutMs: user.code_tools_max_timeout_ms ?? DEFAULT_CODE_TOOLS_MAX_TIMEOUT_MS,
      maxMemoryMb: user.code_tools_max_memory_mb ?? DEFAULT_CODE_TOOLS_MAX_MEMORY_MB,
    },
    codeMode: {
      executionTimeoutMs:
        user.code_mode?.execution_timeout_ms || CODE_MODE_DEFAULTS.executionTimeoutMs,
      memoryLimitBytes: user.code_mode?.memory_limit_bytes || CODE_MODE_DEFAULTS.memoryLimitBytes,
      maxHostCalls: user.code_mode?.max_host_calls || CODE_MODE_DEFAULTS.maxHostCalls,
      maxConcurrentExecutions:
        user.code_mode?.max_concurrent_executions || CODE_MODE_DEFAULTS.maxConcurrentExecutions,
      maxConcurrentToolCalls:
        user.code_mode?.max_concurrent_tool_calls || CODE_MODE_DEFAULTS.maxConcurrentToolCalls,
      maxOutputBytes: user.code_mode?.max_output_bytes || CODE_MODE_DEFAULTS.maxOutputBytes,
    },
    toolkits: user.toolkits ?? [],
    searchMaxResults: user.search?.max_results || DEFAULT_SEARCH_MAX_RESULTS,
    descriptionBudgetTokens:
      user.tool_description_budget_tokens ?? DEFAULT_DESCRIPTION_BUDGET_TOKENS,
    shutdownGraceMs: user.shutdown_grace_ms ?? DEFAULT_SHUTDOWN_GRACE_MS,
    toolPinning: user.tool_pinning ?? DEFAULT_TOOL_PINNING,
    toolPolicy: {
      default: user.tool_policy?.default ?? DEFAULT_POLICY_ACTION,
      destructive: user.tool_policy?.destructive ?? DEFAULT_DESTRUCTIVE_ACTION,
      rules: (user.tool_policy?.rules ?? []).map((r) => ({
        server: r.server,
        tool: r.tool,
        action: r.action,
      })),
      approvalTimeoutMs: user.tool_policy?.approval_timeout_ms ?? DEFAULT_APPROVAL_TIMEOUT_MS,
      approvalChannels: [...new Set(user.tool_policy?.approval_channels ?? APPROVAL_CHANNELS)],
      maxPendingPerCaller:
        user.tool_policy?.max_pending_per_caller ?? DEFAULT_MAX_PENDING_PER_CALLER,
    },
    startupWaitMs: user.startup_wait_ms ?? DEFAULT_STARTUP_WAIT_MS,
    activity: {
      enabled: user.activity_enabled ?? true,
      retentionDays: user.activity_retention_days ?? DEFAULT_ACTIVITY_RETENTION_DAYS,
      maxRecords: user.activity_max_records ?? DEFAULT_ACTIVITY_MAX_RECORDS,
      redactKeys: user.activity_redact_keys ?? DEFAULT_ACTIVITY_REDACT_KEYS,
    },
    telemetry: {
      metrics: user.telemetry?.metrics ?? true,
      metricsAuth: user.telemetry?.metrics_auth ?? user.metrics_auth ?? true,
    },
    instanceId: user.instance_id ?? GENERATED_INSTANCE_ID,
    traces: resolveTraces(user.telemetry, env, source),
    servers,
  };
}
