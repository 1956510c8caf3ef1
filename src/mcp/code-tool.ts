/** @module Code tools on MCP: each listed tool's definition (schema derived from its params) and its call result. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { inputSchema } from '../codetools/index.ts';
import type { Caller, ExecutionResult, Runtime } from '../execution/index.ts';
import type { CodeTool } from '../store/index.ts';
import { TASK_SUPPORT } from './tasks/task-support.ts';

/** The code tools `caller` sees: none when code execution is off; an agent token sees its scope. */
export function visibleCodeTools(runtime: Runtime, caller: Caller): CodeTool[] {
  if (!runtime.codeTools || !runtime.config().codeExecution.enabled) return [];
  return runtime.codeTools.listed(caller.kind === 'admin' ? undefined : (caller.codeTools ?? []));
}

export function codeToolDefinition(tool: CodeTool): Tool {
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: inputSchema(tool.params) as unknown as Tool['inputSchema'],
    execution: TASK_SUPPORT,
  };
}

/**
 * A string value is the text as it is, any other value its JSON; a failure is `{code, message}`.
 * `structuredContent` is the envelope, as for code_execution, with the activity record's id
 * (`_meta["codemux/activity_id"]` carries it too, as before).
 */
export function toCodeToolResult(result: ExecutionResult): CallToolResult {
  const envelope = result.envelope;
  const id = result.activityId ? { activity_id: result.activityId } : {};
  const meta = result.activityId ? { _meta: { 'codemux/activity_id': result.activityId } } : {};
  if (envelope.ok) {
    const text =
      typeof envelope.value === 'string' ? envelope.value : JSON.stringify(envelope.value ?? null);
    return {
      content: [{ type: 'text', text }],
      structuredContent: { ok: true, value: envelope.value ?? null, ...id },
      ...meta,
    };
  }
  const { code, message, line, column, stack } = envelope.error;
  const error = { code, message, ...(line !== undefined ? { line, column } : {}) };
  return {
    content: [{ type: 'text', text: JSON.stringify(error) }],
    // The structured error keeps the stack (a SERIALIZATION_ERROR's path is there).
    structuredContent: { ok: false, error: { ...error, ...(stack ? { stack } : {}) }, ...id },
    isError: true,
    ...meta,
  };
}
