/**
 * @module The sessionful MCP server codemux offers to 2025-generation HTTP and SSE clients (sdk 1.x):
 * tools/list and tools/call of either dialect (dialects.ts), per caller.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../errors/index.ts';
import { ADMIN, type Caller, channelOpen, type Runtime } from '../execution/index.ts';
import { mcpApprovalChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import {
  callDialectTool,
  type Dialect,
  dialectCapabilities,
  listDialectTools,
  SERVER_INFO,
} from './dialects.ts';
import { onToolsCall } from './tools-call.ts';
import { forwardUpstreamLogs } from './upstream-logs.ts';

/** A new MCP server of `dialect` bound to `runtime` for `caller` (whose upstream logs it forwards). */
export function createDialectServer(
  runtime: Runtime,
  dialect: Dialect,
  caller: Caller = ADMIN,
): Server {
  const server = new Server(SERVER_INFO[dialect], { capabilities: dialectCapabilities(dialect) });
  forwardUpstreamLogs(server, runtime, caller);
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: listDialectTools(runtime, dialect, callerOf(extra)),
  }));
  const approvalTimeout = () => runtime.config().toolPolicy.approvalTimeoutMs;
  const elicitationOpen = () => channelOpen(runtime.config(), 'elicitation');
  onToolsCall(server, async (params, extra) => {
    try {
      const channel = mcpApprovalChannel(server, extra, approvalTimeout, elicitationOpen);
      return await callDialectTool(runtime, dialect, params, {
        caller: callerOf(extra),
        channel,
        signal: extra.signal,
        closeSSEStream: extra.closeSSEStream,
        progress: channel.progress,
      });
    } catch (error) {
      if (error instanceof RpcError) throw new McpError(error.code, error.message);
      throw error;
    }
  });
  return server;
}
