/** @module The code_execution tool: its definition (schema exactly as the API reference) and its result. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionResult } from '../execution/index.ts';

export const CODE_EXECUTION_TOOL = 'code_execution';

export const CODE_EXECUTION_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description:
        "JavaScript or TypeScript source code (ES2020+) to execute. The value is the last statement's value or a top-level return; top-level await works.",
    },
    script: {
      type: 'string',
      description:
        'Name of a stored script to execute instead of sending `code` inline. Bare name (1-64 chars of A-Za-z0-9_-), never a path; resolved from the scripts/ directory next to the active config file.',
    },
    language: {
      type: 'string',
      description:
        "Source code language. When set to 'typescript', the code is automatically transpiled to JavaScript before execution.",
      enum: ['javascript', 'typescript'],
      default: 'javascript',
    },
    input: {
      type: 'object',
      description: 'Input data accessible as global `input` variable in code',
      default: {},
    },
    options: {
      type: 'object',
      description: 'Execution options',
      properties: {
        timeout_ms: {
          type: 'number',
          description: 'Execution timeout in milliseconds (1-600000)',
          minimum: 1,
          maximum: 600000,
        },
        max_tool_calls: {
          type: 'number',
          description: 'Maximum number of tool calls (0 = unlimited)',
          minimum: 0,
        },
        allowed_servers: {
          type: 'array',
          items: { type: 'string' },
          description: 'Array of server names allowed to be called (empty = all allowed)',
        },
      },
    },
  },
} as const;

/** The description: what the model needs to write a program, in few tokens. */
export function describeCodeExecution(servers: readonly string[]): string {
  return [
    "Execute JavaScript or TypeScript code that orchestrates multiple upstream MCP tools in a single request; only the program's value returns.",
    'In the sandbox: `input` (the request input); `call_tool(server, tool, args)` (synchronous, returns {ok, result} or {ok:false, error:{code, message}}); `call_tools([{server, tool, args}], {max_parallel})` (parallel, one envelope per request, in order); `await tools.<server>.<tool>(args)` (async, {ok, data, meta} or {ok:false, error}); `console.log()` (captured into logs).',
    "The value is the last statement's value or a top-level `return`; top-level `await` works. Return JSON-serializable data. No require/import, fetch, timers, process or filesystem.",
    servers.length > 0
      ? `Upstream servers: ${servers.join(', ')}.`
      : 'No upstream servers are configured.',
  ].join('\n');
}

/** The code_execution tool as listed by tools/list. */
export function codeExecutionTool(servers: readonly string[]): Tool {
  return {
    name: CODE_EXECUTION_TOOL,
    description: describeCodeExecution(servers),
    inputSchema: CODE_EXECUTION_INPUT_SCHEMA as unknown as Tool['inputSchema'],
  };
}

/** The one place an execution result becomes an MCP tools/call result. */
export function toCallToolResult(result: ExecutionResult): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(result.envelope) }],
    isError: !result.envelope.ok,
    structuredContent: {
      ...result.envelope,
      tool_calls: result.toolCalls,
      stats: result.stats,
    } as Record<string, unknown>,
  };
}
