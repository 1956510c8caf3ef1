/** @module The MCP surface. */

export { callerOf, toAuthInfo } from './caller.ts';
export {
  CODE_EXECUTION_INPUT_SCHEMA,
  CODE_EXECUTION_TOOL,
  codeExecutionTool,
  describeCodeExecution,
  disabledCodeExecutionTool,
  type ServerSummary,
  toCallToolResult,
} from './code-execution-tool.ts';
export { codeToolDefinition, toCodeToolResult, visibleCodeTools } from './code-tool.ts';
export {
  EXECUTE_INPUT_SCHEMA,
  EXECUTE_TOOL,
  executeTool,
  toExecuteResult,
} from './execute-tool.ts';
export { RECONNECTION_PROBE_TOOL } from './reconnection-probe.ts';
export { createDialectServer } from './server.ts';
export { visibleServers } from './visible-servers.ts';
