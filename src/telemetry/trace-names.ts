/**
 * @module Span and attribute names, after the OpenTelemetry MCP semantic conventions
 * (`mcp.*`, `gen_ai.*`, `jsonrpc.*`, `error.type`) and codemux's own (`codemux.*`). An
 * acceptance suite reads them from outside: they change only with the docs.
 */

/** The method every codemux span of a tool call names (`mcp.method.name`). */
export const TOOLS_CALL = 'tools/call';

/** `gen_ai.operation.name` of a tool call. */
export const EXECUTE_TOOL_OPERATION = 'execute_tool';

/** The `error.type` of a tools/call answered with `isError: true` (the conventions' own value). */
export const TOOL_ERROR = 'tool_error';

/** The names of the type check's and an approval wait's spans. */
export const TYPECHECK_SPAN = 'typecheck';
export const APPROVAL_SPAN = 'approval wait';

export const ATTR = {
  methodName: 'mcp.method.name',
  toolName: 'gen_ai.tool.name',
  operationName: 'gen_ai.operation.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  requestId: 'jsonrpc.request.id',
  errorType: 'error.type',
  networkTransport: 'network.transport',
  serviceName: 'service.name',
  serviceInstanceId: 'service.instance.id',
  server: 'codemux.server',
  /** The tool an approval wait holds (the span is not a tool execution: no gen_ai.tool.name). */
  tool: 'codemux.tool',
  executionId: 'codemux.execution_id',
  approvalId: 'codemux.approval_id',
} as const;
