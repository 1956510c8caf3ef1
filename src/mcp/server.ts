/**
 * @module The sessionful MCP server codemux offers to 2025-generation HTTP and SSE clients (sdk 1.x):
 * tools/list and tools/call of either dialect (dialects.ts), per caller, and MCP tasks
 * (2025-11-25: a task-augmented tools/call's task is its run; tasks/legacy-tasks.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { RpcError } from '../errors/index.ts';
import { ADMIN, type Caller, channelOpen, type Runtime } from '../execution/index.ts';
import { NO_SPAN, tracing } from '../telemetry/index.ts';
import { mcpApprovalChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import {
  callDialectTool,
  type Dialect,
  dialectCapabilities,
  listDialectTools,
  SERVER_INFO,
} from './dialects.ts';
import {
  asksForTask,
  LEGACY_TASKS_CAPABILITY,
  legacyCancelTask,
  legacyCreateTask,
  legacyGetTask,
  legacyListTasks,
  legacyTaskResult,
} from './tasks/legacy-tasks.ts';
import { toolCallSpan, traced } from './tool-call-span.ts';
import { onToolsCall, type ToolsCallExtra } from './tools-call.ts';
import { forwardUpstreamLogs } from './upstream-logs.ts';

/** A new MCP server of `dialect` bound to `runtime` for `caller` (whose upstream logs it forwards). */
export function createDialectServer(
  runtime: Runtime,
  dialect: Dialect,
  caller: Caller = ADMIN,
): Server {
  const server = new Server(SERVER_INFO[dialect], {
    capabilities: { ...dialectCapabilities(dialect), tasks: LEGACY_TASKS_CAPABILITY },
  });
  forwardUpstreamLogs(server, runtime, caller);
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({
    tools: listDialectTools(runtime, dialect, callerOf(extra)),
  }));
  const approvalTimeout = () => runtime.config().toolPolicy.approvalTimeoutMs;
  const elicitationOpen = () => channelOpen(runtime.config(), 'elicitation');
  const notifyStatus = (params: Record<string, unknown>) =>
    server.notification({ method: 'notifications/tasks/status', params } as never);
  onToolsCall(server, (params, extra, raw) => {
    const span = tracing().enabled
      ? toolCallSpan(runtime, dialect, {
          name: params.name,
          meta: (raw as { _meta?: unknown } | undefined)?._meta,
          header: (name) => headerOf(extra, name),
          sessionId: extra.sessionId,
          protocolVersion: headerOf(extra, 'mcp-protocol-version'),
          requestId: extra.requestId,
        })
      : NO_SPAN;
    return traced(span, () =>
      protocolErrors(async () => {
        const channel = mcpApprovalChannel(server, extra, approvalTimeout, elicitationOpen);
        const call = {
          caller: callerOf(extra),
          channel,
          signal: extra.signal,
          closeSSEStream: extra.closeSSEStream,
          progress: channel.progress,
          span,
        };
        // A task's run outlives this request: no one is asked on it, approvals wait for REST,
        // the dashboard or the CLI (the task shows input_required meanwhile).
        if (asksForTask(raw))
          return legacyCreateTask(
            runtime,
            dialect,
            params,
            { caller: call.caller, channel: {}, span },
            notifyStatus,
          );
        return callDialectTool(runtime, dialect, params, call);
      }, false),
    );
  });
  server.setRequestHandler(GetTaskRequestSchema, (request, extra) =>
    protocolErrors(() => legacyGetTask(runtime, callerOf(extra), request.params) as never),
  );
  server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) =>
    protocolErrors(
      () => legacyTaskResult(runtime, callerOf(extra), request.params, extra.signal) as never,
    ),
  );
  server.setRequestHandler(ListTasksRequestSchema, (_request, extra) =>
    protocolErrors(() => legacyListTasks(runtime, callerOf(extra)) as never),
  );
  server.setRequestHandler(CancelTaskRequestSchema, (request, extra) =>
    protocolErrors(() => legacyCancelTask(runtime, callerOf(extra), request.params) as never),
  );
  return server;
}

/** One header of the HTTP request that carried a call (the SDK lower-cases their names). */
function headerOf(extra: ToolsCallExtra, name: string): string | undefined {
  const value = extra.requestInfo?.headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Runs `handler`, turning codemux's RpcError into the SDK's protocol error (code and message;
 * its data too, but on tools/call, whose errors have always gone without it here).
 */
async function protocolErrors<T>(handler: () => Promise<T>, withData = true): Promise<T> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof RpcError)
      throw new McpError(error.code, error.message, withData ? error.data : undefined);
    throw error;
  }
}
