/**
 * @module The sessionful MCP server codemux offers to 2025-era HTTP and SSE clients (sdk 1.x):
 * tools/list and tools/call of either dialect (dialects.ts), per caller.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN, type Caller, type Runtime } from '../execution/index.ts';
import { mcpApprovalChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import { callDialectTool, type Dialect, listDialectTools, RpcError } from './dialects.ts';
import { onToolsCall } from './tools-call.ts';
import { forwardUpstreamLogs } from './upstream-logs.ts';

/** Each dialect's server identity. */
export const SERVER_INFO: Record<Dialect, { name: string; version: string }> = {
  default: { name: 'codemux', version: '0.1.0' },
  codemode: { name: 'codemux-codemode', version: '0.1.0' },
};

export interface McpServerOptions {
  /** The first tools/list waits up to this long for servers still connecting (stdio). */
  startupWaitMs?: number;
}

/** A new MCP server of `dialect` bound to `runtime` for `caller` (whose upstream logs it forwards). */
export function createDialectServer(
  runtime: Runtime,
  dialect: Dialect,
  caller: Caller = ADMIN,
  options: McpServerOptions = {},
): Server {
  const server = new Server(SERVER_INFO[dialect], {
    capabilities: { tools: dialect === 'default' ? { listChanged: true } : {}, logging: {} },
  });
  forwardUpstreamLogs(server, runtime, caller);
  let startup: Promise<void> | undefined;
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    if (options.startupWaitMs) {
      startup ??= runtime.registry.whenSettled(options.startupWaitMs);
      await startup;
    }
    return { tools: listDialectTools(runtime, dialect, callerOf(extra)) };
  });
  const approvalTimeout = () => runtime.config().toolPolicy.approvalTimeoutMs;
  onToolsCall(server, async (params, extra) => {
    try {
      return await callDialectTool(runtime, dialect, params, {
        caller: callerOf(extra),
        channel: mcpApprovalChannel(server, extra, approvalTimeout),
        signal: extra.signal,
        closeSSEStream: extra.closeSSEStream,
      });
    } catch (error) {
      if (error instanceof RpcError) throw new McpError(error.code, error.message);
      throw error;
    }
  });
  return server;
}

/** The default dialect's server: code_execution and the code tools. */
export function createMcpServer(
  runtime: Runtime,
  caller: Caller = ADMIN,
  options: McpServerOptions = {},
): Server {
  return createDialectServer(runtime, 'default', caller, options);
}

/** The code mode server: `execute` is the only tool; any other name is -32002. */
export function createCodeModeServer(runtime: Runtime, caller: Caller = ADMIN): Server {
  return createDialectServer(runtime, 'codemode', caller);
}
