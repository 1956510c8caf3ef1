/** @module The MCP surface. */
export {
  CODE_EXECUTION_INPUT_SCHEMA,
  CODE_EXECUTION_TOOL,
  codeExecutionTool,
  toCallToolResult,
} from './code-execution-tool.ts';
export { createMcpServer } from './server.ts';
