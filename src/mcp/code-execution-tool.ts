/** @module The code_execution tool: its definition (schema exactly as the API reference), description and result. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionResult, RunSnapshot } from '../execution/index.ts';
import { TASK_SUPPORT } from './tasks/task-support.ts';

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
    execution_id: {
      type: 'string',
      description:
        'Continue a run that answered status "running" (its execution_id) instead of sending code or script: waits for its answer.',
    },
    wait_ms: {
      type: 'number',
      description:
        "With execution_id: how long to wait for the run's answer before it answers running again (0-600000; default code_execution_yield_ms).",
      minimum: 0,
      maximum: 600000,
    },
    cancel: {
      type: 'boolean',
      description:
        'With execution_id: stop the run (CANCELLED); its in-flight calls are cancelled and calls it holds are never sent.',
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
        typecheck: {
          type: 'string',
          enum: ['off', 'warn', 'error'],
          description:
            "Type-check TypeScript (and JavaScript starting with // @ts-check) against the tools you may call: 'warn' runs and lists diagnostics, 'error' refuses with TYPE_ERROR, 'off' skips (default from config: warn)",
        },
      },
    },
  },
} as const;

/** What the description lists of one upstream server. */
export interface ServerSummary {
  name: string;
  tools: ReadonlyArray<{ name: string; description?: string }>;
  /** Where the server stands when it lists no tools (absent: as if connecting). */
  state?: 'idle' | 'connecting' | 'ready' | 'failed' | 'needs_auth';
  /** Why it failed, one line; only for callers that may see host details. */
  reason?: string;
}

/** Longest failure reason kept in the description. */
const REASON_CHARS = 160;

/** What the description says of a server that lists no tools. */
function withoutTools(s: ServerSummary): string {
  if (s.state === 'ready') return `- ${s.name} (no tools)`;
  if (s.state === 'needs_auth') {
    return `- ${s.name} (needs an OAuth sign-in by an administrator: \`codemux auth login ${s.name}\`)`;
  }
  if (s.state !== 'failed')
    return `- ${s.name} (still connecting; its tools are listed once it is ready)`;
  const line = s.reason?.split('\n')[0]?.trim();
  if (!line) return `- ${s.name} (failed to start)`;
  const cut = line.length > REASON_CHARS ? `${line.slice(0, REASON_CHARS - 1)}…` : line;
  return `- ${s.name} (failed: ${cut})`;
}

/** Longest tool summary kept in the description (the model can read more by calling the tool). */
const TOOL_LINE_CHARS = 60;

/** A tool description's first sentence, cut to TOOL_LINE_CHARS. */
function summary(text: string | undefined): string {
  const line = (text ?? '').split('\n')[0]!.trim();
  const sentence = line.split(/(?<=[.!?])\s/)[0]!.replace(/[.!?]$/, '');
  return sentence.length > TOOL_LINE_CHARS
    ? `${sentence.slice(0, TOOL_LINE_CHARS - 1)}…`
    : sentence;
}

const GUIDE = [
  "Run JavaScript/TypeScript that calls upstream MCP tools in one request; only the program's value returns.",
  'Sandbox: `input`; `call_tool(server, tool, args)` sync -> {ok, result} | {ok:false, error:{code, message}}; `call_tools([{server, tool, args}], {max_parallel})` parallel, one envelope each, in order; `await tools.<server>.<tool>(args)` -> {ok, data} | {ok:false, error}; `console.log` -> logs.',
  'Value: last statement or top-level `return`; top-level `await` works; must be JSON. No require/import/fetch/timers/fs.',
  'Discover: `await catalog.tools.search({query})`, `catalog.tools.describe({namespace, name})` (schemas + TypeScript), `catalog.namespaces.list()`, `catalog.toolkits.list()`.',
  'Long runs: an answer with status "running" (waiting for an approval, say) carries execution_id; call again with {execution_id} (optional wait_ms) to wait for the result, or {execution_id, cancel: true} to stop it.',
].join('\n');

/** About 4 characters a token: the budget's unit. */
export const CHARS_PER_TOKEN = 4;

/**
 * The description: what the model needs to write a program, and what it can call. Every
 * tool is listed while that fits `budgetTokens`; past it, the servers with tool counts and
 * a pointer to catalog search (progressive disclosure).
 */
export function describeCodeExecution(
  servers: readonly ServerSummary[],
  budgetTokens = Number.POSITIVE_INFINITY,
): string {
  if (servers.length === 0) return `${GUIDE}\nNo upstream servers are configured.`;
  const full = `${GUIDE}\nServers and tools:\n${toolLines(servers).join('\n')}`;
  if (full.length / CHARS_PER_TOKEN <= budgetTokens) return full;
  const total = servers.reduce((n, s) => n + s.tools.length, 0);
  const counts = servers.map((s) => `${s.name} (${s.tools.length})`).join(', ');
  return `${GUIDE}\n${total} tools on ${servers.length} servers: ${counts}. Find the ones you need with catalog.tools.search, then catalog.tools.describe before calling.`;
}

function toolLines(servers: readonly ServerSummary[]): string[] {
  return servers.map((s) => {
    if (s.tools.length === 0) return withoutTools(s);
    const tools = s.tools.map((t) => {
      const line = summary(t.description);
      return line ? `${t.name}: ${line}` : t.name;
    });
    return `- ${s.name}: ${tools.join('; ')}`;
  });
}

/** The code_execution tool as listed by tools/list. */
export function codeExecutionTool(servers: readonly ServerSummary[], budgetTokens?: number): Tool {
  return {
    name: CODE_EXECUTION_TOOL,
    description: describeCodeExecution(servers, budgetTokens),
    inputSchema: CODE_EXECUTION_INPUT_SCHEMA as unknown as Tool['inputSchema'],
    execution: TASK_SUPPORT,
  };
}

/**
 * code_execution while the feature switch is off: listed so clients see why (`why`, the
 * caller's FEATURE_DISABLED message), every call refused.
 */
export function disabledCodeExecutionTool(why: string): Tool {
  return {
    name: CODE_EXECUTION_TOOL,
    description: `code_execution is disabled on this gateway (${why}); calls are refused with FEATURE_DISABLED until then.`,
    inputSchema: CODE_EXECUTION_INPUT_SCHEMA as unknown as Tool['inputSchema'],
    execution: TASK_SUPPORT,
  };
}

/** What a running answer says of how to go on. */
export function continueHint(id: string): string {
  return `Still running. Call code_execution with {"execution_id": "${id}"} to wait for its answer (add "wait_ms", 0-600000, to wait longer or shorter), or with {"execution_id": "${id}", "cancel": true} to stop it.`;
}

/**
 * A run that yielded (code_execution or a code tool): `{ok: true, status: "running",
 * execution_id, elapsed_ms, waiting_for, logs}` as the first text and in structuredContent,
 * not an error; the second text says how to continue.
 */
export function toRunningResult(snapshot: RunSnapshot): CallToolResult {
  const running = {
    ok: true,
    status: 'running',
    execution_id: snapshot.execution_id,
    elapsed_ms: snapshot.elapsed_ms,
    waiting_for: snapshot.waiting_for,
    ...(snapshot.waiting_for_input ? { waiting_for_input: snapshot.waiting_for_input } : {}),
    logs: snapshot.logs,
  };
  return {
    content: [
      { type: 'text', text: JSON.stringify(running) },
      { type: 'text', text: continueHint(snapshot.execution_id) },
    ],
    isError: false,
    structuredContent: running,
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
      ...(result.activityId ? { activity_id: result.activityId } : {}),
    } as Record<string, unknown>,
  };
}
