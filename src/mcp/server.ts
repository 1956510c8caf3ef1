/** @module The MCP server codemux offers: tools/list and tools/call for code_execution. */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../execution/index.ts';
import { CODE_EXECUTION_TOOL, codeExecutionTool, toCallToolResult } from './code-execution-tool.ts';

const SERVER_INFO = { name: 'codemux', version: '0.1.0' };

/** A new MCP server bound to `runtime`; connect it to any SDK server transport. */
export function createMcpServer(runtime: Runtime): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [codeExecutionTool(runtime.registry.serverNames())],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== CODE_EXECUTION_TOOL) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool '${request.params.name}' not found; codemux offers ${CODE_EXECUTION_TOOL}`,
      );
    }
    const result = await runtime.service.execute(request.params.arguments ?? {});
    return toCallToolResult(result);
  });
  return server;
}
