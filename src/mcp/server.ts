/** @module The MCP server codemux offers: tools/list and tools/call for code_execution and the code tools, per caller. */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN, type Caller, featureDisabled, type Runtime } from '../execution/index.ts';
import { mcpApprovalChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import {
  CODE_EXECUTION_TOOL,
  codeExecutionTool,
  disabledCodeExecutionTool,
  type ServerSummary,
  toCallToolResult,
} from './code-execution-tool.ts';
import { codeToolDefinition, toCodeToolResult, visibleCodeTools } from './code-tool.ts';
import { RECONNECTION_PROBE_TOOL, reconnectionProbe } from './reconnection-probe.ts';
import { onToolsCall } from './tools-call.ts';
import { forwardUpstreamLogs } from './upstream-logs.ts';

const SERVER_INFO = { name: 'codemux', version: '0.1.0' };

/**
 * A server's tools as the description lists them: a tool held by pinning is named as held,
 * with the description that was approved (a changed one) or none (a new one), so a changed
 * description never reaches the model before someone approved it.
 */
function shownTools(runtime: Runtime, server: string): ServerSummary['tools'] {
  return runtime.registry.tools(server).map((t) => {
    const held = runtime.pins.holdOf(server, t);
    if (!held) return t;
    const approved = held.before?.description;
    return {
      name: t.name,
      description: `(held until an administrator approves it)${approved ? ` ${approved}` : ''}`,
    };
  });
}

/** The servers `caller` may use, with their tools, as the description lists them. */
export function visibleServers(runtime: Runtime, caller: Caller): ServerSummary[] {
  const scope = caller.kind === 'agent' ? new Set(caller.servers) : undefined;
  return runtime.registry
    .status()
    .filter(
      (s) => s.state !== 'disabled' && s.state !== 'quarantined' && (!scope || scope.has(s.name)),
    )
    .map((s) => ({
      name: s.name,
      tools: shownTools(runtime, s.name),
      state: s.state as ServerSummary['state'],
      // A failure's text can carry host paths and stderr: only the admin reads it.
      ...(caller.kind === 'admin' && s.last_error ? { reason: s.last_error } : {}),
    }));
}

export interface McpServerOptions {
  /** The first tools/list waits up to this long for servers still connecting (stdio). */
  startupWaitMs?: number;
}

/** A new MCP server bound to `runtime` for `caller` (whose upstream logs it forwards); connect it to any SDK server transport. */
export function createMcpServer(
  runtime: Runtime,
  caller: Caller = ADMIN,
  options: McpServerOptions = {},
): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {} },
  });
  forwardUpstreamLogs(server, runtime, caller);
  const approvalTimeout = () => runtime.config().toolPolicy.approvalTimeoutMs;
  let startup: Promise<void> | undefined;
  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    if (options.startupWaitMs) {
      startup ??= runtime.registry.whenSettled(options.startupWaitMs);
      await startup;
    }
    const config = runtime.config();
    const caller = callerOf(extra);
    const tool = config.codeExecution.enabled
      ? codeExecutionTool(visibleServers(runtime, caller), config.descriptionBudgetTokens)
      : disabledCodeExecutionTool(featureDisabled(config, caller).message);
    return { tools: [tool, ...visibleCodeTools(runtime, caller).map(codeToolDefinition)] };
  });
  onToolsCall(server, async (params, extra) => {
    if (params.name === RECONNECTION_PROBE_TOOL) return reconnectionProbe(extra);
    if (params.name !== CODE_EXECUTION_TOOL) {
      const caller = callerOf(extra);
      const codeTool = runtime.codeTools?.find(params.name);
      // A disabled feature answers FEATURE_DISABLED for a tool that exists, as code_execution does.
      if (codeTool && (caller.kind === 'admin' || caller.codeTools?.includes(codeTool.name))) {
        const result = await runtime.service.runCodeTool(codeTool, params.arguments, caller, {
          channel: mcpApprovalChannel(server, extra, approvalTimeout),
          signal: extra.signal,
        });
        return toCodeToolResult(result);
      }
      throw new McpError(
        ErrorCode.InvalidParams,
        `Tool '${params.name}' not found; codemux offers ${CODE_EXECUTION_TOOL} and the code tools tools/list shows`,
      );
    }
    const result = await runtime.service.execute(params.arguments, callerOf(extra), {
      channel: mcpApprovalChannel(server, extra, approvalTimeout),
      signal: extra.signal,
    });
    return toCallToolResult(result);
  });
  return server;
}
