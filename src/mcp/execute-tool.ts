/** @module The `execute` tool of code mode: its definition and its tools/call result. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExecuteOutcome } from '../execution/index.ts';

export const EXECUTE_TOOL = 'execute';

export const EXECUTE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description:
        'The script, at most 256 KiB: the body of an async function over `tools`, `catalog` and `console`; `return` ends the run.',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 1,
      description:
        "Wall-clock limit for this run in milliseconds; it can only lower the gateway's execution timeout.",
    },
  },
  required: ['code'],
  additionalProperties: false,
} as const;

/** The execute tool; `disabled` (the caller's FEATURE_DISABLED message) while the feature switch is off. */
export function executeTool(disabled?: string): Tool {
  return {
    name: EXECUTE_TOOL,
    description: [
      ...(disabled
        ? [
            `execute is disabled on this gateway (${disabled}); calls are refused with FEATURE_DISABLED.`,
          ]
        : []),
      "Run a TypeScript/JavaScript script (an async function body) against the gateway's tools; only its return value comes back.",
      'Call tools with `await tools["namespace.name"](args)` or `tools.namespace.name(args)` -> {ok, data, meta} | {ok: false, error: {code, message, retryable}}.',
      'Find tools with `await catalog.tools.search({query})`, `catalog.tools.describe({namespace, name})` (input/output schemas and a TypeScript signature), `catalog.namespaces.list()`, `catalog.tools.list({namespace})`, `catalog.toolkits.list()` / `get({name})`.',
      '`console.log` lines come back in logs. No fetch, timers, modules, filesystem or network.',
    ].join('\n'),
    inputSchema: EXECUTE_INPUT_SCHEMA as unknown as Tool['inputSchema'],
  };
}

/** The one place an execute outcome becomes an MCP tools/call result. */
export function toExecuteResult(outcome: ExecuteOutcome): CallToolResult {
  const { result, truncation, activityId } = outcome;
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: {
      ...result,
      ...(activityId ? { activity_id: activityId } : {}),
    } as unknown as Record<string, unknown>,
    isError: result.status === 'error',
    ...(truncation ? { _meta: { 'codemux/codemodeTruncation': truncation } } : {}),
  };
}
