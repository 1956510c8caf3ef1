/** @module The code mode MCP server: `execute` is the only tool; any other name is -32002. */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  ADMIN,
  type Caller,
  ExecuteRefusal,
  featureDisabled,
  type Runtime,
} from '../execution/index.ts';
import { mcpApprovalChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import { EXECUTE_TOOL, executeTool, toExecuteResult } from './execute-tool.ts';
import { onToolsCall } from './tools-call.ts';
import { forwardUpstreamLogs } from './upstream-logs.ts';

const SERVER_INFO = { name: 'codemux-codemode', version: '0.1.0' };
/** Arion's JSON-RPC code for a tool name that is not `execute`. */
const TOOL_NOT_FOUND = -32002;

export function createCodeModeServer(runtime: Runtime, caller: Caller = ADMIN): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {}, logging: {} } });
  forwardUpstreamLogs(server, runtime, caller);
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const config = runtime.config();
    const disabled = config.codeExecution.enabled
      ? undefined
      : featureDisabled(config, callerOf(extra)).message;
    return { tools: [executeTool(disabled)] };
  });
  onToolsCall(server, async (params, extra) => {
    if (params.name !== EXECUTE_TOOL) {
      throw new McpError(TOOL_NOT_FOUND, `Tool '${params.name}' not found`);
    }
    try {
      const outcome = await runtime.execute.execute(params.arguments, callerOf(extra), {
        channel: mcpApprovalChannel(
          server,
          extra,
          () => runtime.config().toolPolicy.approvalTimeoutMs,
        ),
        signal: extra.signal,
      });
      return toExecuteResult(outcome);
    } catch (error) {
      if (error instanceof ExecuteRefusal) throw new McpError(error.code, error.message);
      throw error;
    }
  });
  return server;
}
