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

export const MAX_CONCURRENT_REQUESTS_LIMIT = 10_000;
export const MAX_QUEUE_SIZE = 100_000;

/** Sources (inline or stored) larger than this are refused before anything runs. */
export const MAX_SOURCE_BYTES = 262_144;

/** Console capture: lines kept, and bytes per line before the cut marker. */
export const MAX_LOG_LINES = 128;
export const MAX_LOG_LINE_BYTES = 4096;

/** How long a connect (spawn + initialize + tools/list) may take before the server counts as failed (`connect_timeout_ms`). */
export const UPSTREAM_CONNECT_TIMEOUT_MS = 30_000;
export const MIN_CONNECT_TIMEOUT_MS = 100;
export const MAX_CONNECT_TIMEOUT_MS = 600_000;

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
