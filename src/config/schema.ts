/** @module The user config file's shape (all optional), validated with zod. */
import { z } from 'zod';
import {
  APPROVAL_CHANNELS,
  DATABASE_URL_PATTERN,
  INSTANCE_ID_PATTERN,
  MAX_ACTIVITY_MAX_RECORDS,
  MAX_ACTIVITY_REDACT_KEY_CHARS,
  MAX_ACTIVITY_REDACT_KEYS,
  MAX_ACTIVITY_RETENTION_DAYS,
  MAX_APPROVAL_TIMEOUT_MS,
  MAX_CLUSTER_CONCURRENT_REQUESTS,
  MAX_CODE_MODE_MEMORY_BYTES,
  MAX_CONCURRENT_REQUESTS_LIMIT,
  MAX_CONNECT_TIMEOUT_MS,
  MAX_DESCRIPTION_BUDGET_TOKENS,
  MAX_DISABLED_TOOLS,
  MAX_MAX_HOST_CALLS,
  MAX_MAX_MCP_SESSIONS,
  MAX_MAX_OUTPUT_BYTES,
  MAX_MAX_PARALLEL,
  MAX_MAX_PENDING_PER_CALLER,
  MAX_MAX_REQUEST_BYTES,
  MAX_MAX_RESULT_BYTES,
  MAX_MAX_RUNNING,
  MAX_MEMORY_LIMIT_MB,
  MAX_OAUTH_REFRESH_INTERVAL_MS,
  MAX_POLICY_GLOB_CHARS,
  MAX_POLICY_RULES,
  MAX_POOL_SIZE,
  MAX_QUEUE_SIZE,
  MAX_RESULT_TTL_MS,
  MAX_SEARCH_RESULTS,
  MAX_SHUTDOWN_GRACE_MS,
  MAX_STARTUP_WAIT_MS,
  MAX_TIMEOUT_MS,
  MAX_TYPECHECK_WAIT_MS,
  MAX_YIELD_MS,
  MIN_ACTIVITY_MAX_RECORDS,
  MIN_APPROVAL_TIMEOUT_MS,
  MIN_CONNECT_TIMEOUT_MS,
  MIN_MAX_HOST_CALLS,
  MIN_MAX_MCP_SESSIONS,
  MIN_MAX_OUTPUT_BYTES,
  MIN_MAX_PARALLEL,
  MIN_MAX_PENDING_PER_CALLER,
  MIN_MAX_REQUEST_BYTES,
  MIN_MAX_RESULT_BYTES,
  MIN_MAX_RUNNING,
  MIN_MEMORY_LIMIT_MB,
  MIN_OAUTH_REFRESH_INTERVAL_MS,
  MIN_POOL_SIZE,
  MIN_RESULT_TTL_MS,
  MIN_TIMEOUT_MS,
  MIN_YIELD_MS,
  POLICY_ACTIONS,
  SERVER_NAME_PATTERN,
  TOOL_PINNING_MODES,
  TYPECHECK_MODES,
} from './defaults.ts';

/** An integer in [min, max], with a message that states the range. */
function intIn(min: number, max: number) {
  const hint = `must be an integer from ${min} to ${max}`;
  return z
    .number({ error: hint })
    .int({ error: hint })
    .min(min, { error: hint })
    .max(max, { error: hint });
}

/** 0 (the feature off) or an integer from `min` to `max`. */
function zeroOrIntIn(min: number, max: number) {
  const hint = `must be 0 or an integer from ${min} to ${max}`;
  return z
    .number({ error: hint })
    .int({ error: hint })
    .refine((n) => n === 0 || (n >= min && n <= max), { error: hint });
}

const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), {
  error: 'must be an object of strings',
});

export const userServerSchema = z.object({
  name: z
    .string({ error: 'must be a string' })
    .regex(SERVER_NAME_PATTERN, { error: 'must be 1-64 characters of A-Z, a-z, 0-9, _ and -' })
    .optional(),
  protocol: z
    .enum(['stdio', 'http', 'sse', 'streamable-http'], {
      error: 'must be "stdio", "http" (Streamable HTTP) or "sse"',
    })
    .optional(),
  type: z
    .enum(['stdio', 'http', 'sse', 'streamable-http'], {
      error: 'must be "stdio", "http" (Streamable HTTP) or "sse"',
    })
    .optional(),
  command: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .optional(),
  args: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' })
    .optional(),
  env: stringMap.optional(),
  cwd: z.string({ error: 'must be a string' }).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  headers: stringMap.optional(),
  oauth: z
    .object(
      {
        client_id: z
          .string({
            error: 'must be a string (the client id registered with the authorization server)',
          })
          .min(1, { error: 'must not be empty (leave "client_id" out to register by DCR)' })
          .optional(),
        client_secret: z
          .string({ error: 'must be a string' })
          .min(1, { error: 'must not be empty (leave it out for a public client)' })
          .optional(),
        scopes: z
          .array(
            z.string({ error: 'must be a string' }).regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, {
              error: 'must be one scope token (no spaces)',
            }),
            { error: 'must be an array of scope names, like ["repo", "read:user"]' },
          )
          .optional(),
        redirect_uri: z
          .url({ error: 'must be an http(s) URL ending in /oauth/callback on this gateway' })
          .optional(),
        refresh_min_interval_ms: intIn(
          MIN_OAUTH_REFRESH_INTERVAL_MS,
          MAX_OAUTH_REFRESH_INTERVAL_MS,
        ).optional(),
      },
      {
        error:
          'must be an object like {"client_id": "...", "scopes": ["..."]} or {} (sign in with Dynamic Client Registration)',
      },
    )
    .optional(),
  enabled: z.boolean({ error: 'must be true or false' }).optional(),
  quarantined: z.boolean({ error: 'must be true or false' }).optional(),
  disabled_tools: z
    .array(
      z
        .string({ error: 'must be a tool name (a string), like "delete_file"' })
        .min(1, { error: 'must not be empty' }),
      { error: 'must be an array of tool names, like ["delete_file"]' },
    )
    .max(MAX_DISABLED_TOOLS, { error: `must list at most ${MAX_DISABLED_TOOLS} tool names` })
    .optional(),
  max_concurrent_requests: intIn(1, MAX_CONCURRENT_REQUESTS_LIMIT).optional(),
  queue_size: intIn(0, MAX_QUEUE_SIZE).optional(),
  cluster_max_concurrent_requests: intIn(1, MAX_CLUSTER_CONCURRENT_REQUESTS).optional(),
  call_timeout_ms: intIn(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS).optional(),
  connect_timeout_ms: intIn(MIN_CONNECT_TIMEOUT_MS, MAX_CONNECT_TIMEOUT_MS).optional(),
});

export type UserServerConfig = z.infer<typeof userServerSchema>;

/** What a bad `tool_policy.approval_channels` is told. */
const CHANNELS_ERROR = `must be an array of some of ${APPROVAL_CHANNELS.map((c) => `"${c}"`).join(', ')} (the default is all four)`;

/** A `tool_policy` action. */
const policyAction = z.enum(POLICY_ACTIONS, {
  error: `must be one of ${POLICY_ACTIONS.map((a) => `"${a}"`).join(', ')}`,
});

/** A rule's `server` or `tool`: a name in which `*` matches any run of characters. */
const policyGlob = z
  .string({
    error: 'must be a name or a glob (a string; `*` matches any characters), like "delete_*"',
  })
  .min(1, { error: 'must not be empty (use "*" for any)' })
  .max(MAX_POLICY_GLOB_CHARS, { error: `must be at most ${MAX_POLICY_GLOB_CHARS} characters` });

export const userConfigSchema = z.object({
  listen: z
    .string({ error: 'must be a string like "127.0.0.1:8080"' })
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, {
      error: 'must be HOST:PORT, like "127.0.0.1:8080"',
    })
    .optional(),
  require_mcp_auth: z.boolean({ error: 'must be true or false' }).optional(),
  oauth_client_metadata_url: z
    .url({
      protocol: /^https$/,
      error:
        'must be an https URL with a path, like "https://codemux.example.com/oauth/client-metadata.json" (where codemux\'s OAuth client metadata document is served)',
    })
    .refine((url) => URL.canParse(url) && new URL(url).pathname !== '/', {
      error:
        'must have a path after the host, like "https://codemux.example.com/oauth/client-metadata.json"',
    })
    .optional(),
  data_dir: z.string({ error: 'must be a string' }).optional(),
  database_url: z
    .string({ error: 'must be a string' })
    .regex(DATABASE_URL_PATTERN, {
      error: 'must be a PostgreSQL URL like "postgres://user:password@host:5432/codemux"',
    })
    .optional(),
  api_key: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .optional(),
  max_request_bytes: intIn(MIN_MAX_REQUEST_BYTES, MAX_MAX_REQUEST_BYTES).optional(),
  max_mcp_sessions: intIn(MIN_MAX_MCP_SESSIONS, MAX_MAX_MCP_SESSIONS).optional(),
  enable_code_execution: z.boolean({ error: 'must be true or false' }).optional(),
  code_execution_timeout_ms: intIn(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS).optional(),
  code_execution_max_tool_calls: intIn(0, Number.MAX_SAFE_INTEGER).optional(),
  code_execution_pool_size: intIn(MIN_POOL_SIZE, MAX_POOL_SIZE).optional(),
  code_execution_max_parallel: intIn(MIN_MAX_PARALLEL, MAX_MAX_PARALLEL).optional(),
  code_execution_memory_limit_mb: intIn(MIN_MEMORY_LIMIT_MB, MAX_MEMORY_LIMIT_MB).optional(),
  code_execution_max_output_bytes: intIn(MIN_MAX_OUTPUT_BYTES, MAX_MAX_OUTPUT_BYTES).optional(),
  code_execution_max_result_bytes: intIn(MIN_MAX_RESULT_BYTES, MAX_MAX_RESULT_BYTES).optional(),
  code_execution_max_host_calls: intIn(MIN_MAX_HOST_CALLS, MAX_MAX_HOST_CALLS).optional(),
  code_execution_typecheck: z
    .enum(TYPECHECK_MODES, {
      error: `must be one of ${TYPECHECK_MODES.map((m) => `"${m}"`).join(', ')}`,
    })
    .optional(),
  code_execution_typecheck_wait_ms: intIn(0, MAX_TYPECHECK_WAIT_MS).optional(),
  code_execution_yield_ms: zeroOrIntIn(MIN_YIELD_MS, MAX_YIELD_MS).optional(),
  code_execution_result_ttl_ms: intIn(MIN_RESULT_TTL_MS, MAX_RESULT_TTL_MS).optional(),
  code_execution_max_running: intIn(MIN_MAX_RUNNING, MAX_MAX_RUNNING).optional(),
  code_execution_durable: z.boolean({ error: 'must be true or false' }).optional(),
  code_tools_max_timeout_ms: intIn(MIN_TIMEOUT_MS, MAX_TIMEOUT_MS).optional(),
  code_tools_max_memory_mb: intIn(MIN_MEMORY_LIMIT_MB, MAX_MEMORY_LIMIT_MB).optional(),
  connect_timeout_ms: intIn(MIN_CONNECT_TIMEOUT_MS, MAX_CONNECT_TIMEOUT_MS).optional(),
  toolkits: z
    .array(
      z.object({
        name: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
        description: z.string({ error: 'must be a string' }).default(''),
        instructions: z.string({ error: 'must be a string' }).default(''),
        tools: z.array(
          z.string().regex(/^[^.]+\..+$/, { error: 'must be qualified names "server.tool"' }),
          {
            error: 'must be an array of "server.tool" names',
          },
        ),
      }),
      { error: 'must be an array of {name, description, instructions, tools}' },
    )
    .optional(),
  search: z
    .object(
      { max_results: intIn(0, MAX_SEARCH_RESULTS).optional() },
      { error: 'must be an object' },
    )
    .optional(),
  startup_wait_ms: intIn(0, MAX_STARTUP_WAIT_MS).optional(),
  activity_enabled: z.boolean({ error: 'must be true or false' }).optional(),
  activity_retention_days: intIn(1, MAX_ACTIVITY_RETENTION_DAYS).optional(),
  activity_max_records: intIn(MIN_ACTIVITY_MAX_RECORDS, MAX_ACTIVITY_MAX_RECORDS).optional(),
  activity_redact_keys: z
    .array(
      z
        .string({ error: 'must be a key name (a string), like "api_key"' })
        .max(MAX_ACTIVITY_REDACT_KEY_CHARS, {
          error: `must be at most ${MAX_ACTIVITY_REDACT_KEY_CHARS} characters`,
        })
        .regex(/[\p{L}\p{N}]/u, {
          error:
            'must hold a letter or a digit (keys are matched by their letters and digits, like "api_key")',
        }),
      { error: 'must be an array of key names, like ["password", "token", "api_key"]' },
    )
    .max(MAX_ACTIVITY_REDACT_KEYS, {
      error: `must list at most ${MAX_ACTIVITY_REDACT_KEYS} key names`,
    })
    .optional(),
  instance_id: z
    .string({ error: 'must be a string' })
    .regex(INSTANCE_ID_PATTERN, { error: 'must be 1-32 characters of A-Z, a-z, 0-9, _ and -' })
    .optional(),
  tool_description_budget_tokens: intIn(0, MAX_DESCRIPTION_BUDGET_TOKENS).optional(),
  tool_pinning: z
    .enum(TOOL_PINNING_MODES, {
      error: `must be one of ${TOOL_PINNING_MODES.map((m) => `"${m}"`).join(', ')} (the default is "tofu")`,
    })
    .optional(),
  tool_policy: z
    .object(
      {
        default: policyAction.optional(),
        destructive: policyAction.optional(),
        rules: z
          .array(
            z.object(
              { server: policyGlob, tool: policyGlob, action: policyAction },
              {
                error:
                  'must be an object {server, tool, action}, like {"server": "github", "tool": "delete_*", "action": "ask"}',
              },
            ),
            {
              error:
                'must be an array of {server, tool, action}, like [{"server": "*", "tool": "delete_*", "action": "deny"}]',
            },
          )
          .max(MAX_POLICY_RULES, { error: `must hold at most ${MAX_POLICY_RULES} rules` })
          .optional(),
        approval_timeout_ms: intIn(MIN_APPROVAL_TIMEOUT_MS, MAX_APPROVAL_TIMEOUT_MS).optional(),
        approval_channels: z
          .array(z.enum(APPROVAL_CHANNELS, { error: CHANNELS_ERROR }), { error: CHANNELS_ERROR })
          .optional(),
        max_pending_per_caller: intIn(
          MIN_MAX_PENDING_PER_CALLER,
          MAX_MAX_PENDING_PER_CALLER,
        ).optional(),
      },
      {
        error:
          'must be an object with default, destructive, rules, approval_timeout_ms, approval_channels and max_pending_per_caller (all optional)',
      },
    )
    .optional(),
  shutdown_grace_ms: intIn(0, MAX_SHUTDOWN_GRACE_MS).optional(),
  telemetry: z
    .object(
      {
        metrics: z.boolean({ error: 'must be true or false' }).optional(),
        metrics_auth: z.boolean({ error: 'must be true or false' }).optional(),
        otlp_endpoint: z
          .url({
            protocol: /^https?$/,
            error:
              'must be an http(s) URL: the OpenTelemetry collector\'s OTLP/HTTP base, like "http://127.0.0.1:4318"',
          })
          .optional(),
        sample_ratio: z
          .number({ error: 'must be a number from 0 to 1 (the share of traces recorded)' })
          .min(0, { error: 'must be a number from 0 to 1 (the share of traces recorded)' })
          .max(1, { error: 'must be a number from 0 to 1 (the share of traces recorded)' })
          .optional(),
      },
      {
        error:
          'must be an object with metrics, metrics_auth, otlp_endpoint and sample_ratio (all optional)',
      },
    )
    .optional(),
  code_mode: z
    .object(
      {
        execution_timeout_ms: intIn(0, MAX_TIMEOUT_MS).optional(),
        memory_limit_bytes: intIn(0, MAX_CODE_MODE_MEMORY_BYTES).optional(),
        max_host_calls: intIn(0, 1_000_000).optional(),
        max_concurrent_executions: intIn(0, 10_000).optional(),
        max_concurrent_tool_calls: intIn(0, MAX_MAX_PARALLEL).optional(),
        max_output_bytes: z
          .number({ error: 'must be 0 (default) or an integer from 1024' })
          .int({ error: 'must be 0 (default) or an integer from 1024' })
          .refine((n) => n === 0 || (n >= MIN_MAX_OUTPUT_BYTES && n <= MAX_MAX_OUTPUT_BYTES), {
            error: `must be 0 (default) or an integer from ${MIN_MAX_OUTPUT_BYTES} to ${MAX_MAX_OUTPUT_BYTES}`,
          })
          .optional(),
      },
      { error: 'must be an object' },
    )
    .optional(),
  /** The same setting as `telemetry.metrics_auth` (DESIGN.md writes it bare). */
  metrics_auth: z.boolean({ error: 'must be true or false' }).optional(),
  mcpServers: z
    .union([z.array(z.unknown()), z.record(z.string(), z.unknown())], {
      error: 'must be an array of servers or an object of servers keyed by name',
    })
    .optional(),
});

export type UserConfig = z.infer<typeof userConfigSchema>;
