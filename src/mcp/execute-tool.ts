/** @module The `execute` tool of code mode: its definition and its tools/call result. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type ExecuteOutcome, executeToolCalls, type RunSnapshot } from '../execution/index.ts';
import { TASK_SUPPORT } from './tasks/task-support.ts';

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
      minimum: 0,
      description:
        "Wall-clock limit for this run in milliseconds; it can only lower the gateway's execution timeout. With execution_id: how long to wait for the run's result (0-600000).",
    },
    execution_id: {
      type: 'string',
      description:
        'Continue a run that answered status "running" (its executionId) instead of sending code: waits for its result.',
    },
    cancel: {
      type: 'boolean',
      description: 'With execution_id: stop the run (CANCELLED); calls it holds are never sent.',
    },
  },
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
    execution: TASK_SUPPORT,
  };
}

/**
 * A run of execute that yielded: `{status: "running", result: null, error: null, diagnostics:
 * [], logs, toolCalls (so far), executionId}`, not an error; the second text says how to go on.
 */
export function toExecuteRunning(snapshot: RunSnapshot): CallToolResult {
  const id = snapshot.execution_id;
  const running = {
    status: 'running',
    result: null,
    error: null,
    diagnostics: [],
    logs: snapshot.logs,
    toolCalls: executeToolCalls(snapshot.tool_calls),
    executionId: id,
  };
  return {
    content: [
      { type: 'text', text: JSON.stringify(running) },
      {
        type: 'text',
        text: `Still running. Call execute with {"execution_id": "${id}"} to wait for its result (add "timeout_ms", 0-600000, to wait longer or shorter), or with {"execution_id": "${id}", "cancel": true} to stop it.`,
      },
    ],
    structuredContent: running,
    isError: false,
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
