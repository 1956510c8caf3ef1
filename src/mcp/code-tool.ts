/** @module Code tools on MCP: each listed tool's definition (schema derived from its params) and its call result. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { inputSchema } from '../codetools/index.ts';
import type { Caller, ExecutionResult, Runtime } from '../execution/index.ts';
import type { CodeTool } from '../store/index.ts';

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
  };
}

/** A string value is the text as it is, any other value its JSON; a failure is `{code, message}`. */
export function toCodeToolResult(result: ExecutionResult): CallToolResult {
  const envelope = result.envelope;
  // The content is the tool's value alone (Vectoralix); its activity record rides in _meta.
  const meta = result.activityId ? { _meta: { 'codemux/activity_id': result.activityId } } : {};
  if (envelope.ok) {
    const text =
      typeof envelope.value === 'string' ? envelope.value : JSON.stringify(envelope.value ?? null);
    return { content: [{ type: 'text', text }], ...meta };
  }
  const { code, message, line, column } = envelope.error;
  return {
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          code,
          message,
          ...(line !== undefined ? { line, column } : {}),
        }),
      },
    ],
    isError: true,
    ...meta,
  };
}
