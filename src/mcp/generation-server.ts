/**
 * @module The MCP server of the 2.x SDK (`@modelcontextprotocol/server`), which speaks both
 * protocol generations: 2026-07-28 (no session; one instance per HTTP request, or per stdio
 * connection) and 2025-11-25 and older (an `initialize`d stdio connection). It answers with
 * the same dialects as the sessionful server (dialects.ts). A held call is put to a 2025
 * client by elicitation on its connection and to a 2026 one as input_required; a 2026
 * request gets the upstream log lines that arrive while it runs.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpRequestContext,
  ProtocolError,
  Server,
} from '@modelcontextprotocol/server';
import { TOOLS_LIST_TTL_MS } from '../config/defaults.ts';
import { RpcError } from '../errors/index.ts';
import { type CallerChannel, channelOpen, type Runtime } from '../execution/index.ts';
import { elicitationChannel, progressChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import {
  callDialectTool,
  type Dialect,
  dialectCapabilities,
  listDialectTools,
  SERVER_INFO,
} from './dialects.ts';
import { callWithInputRequired, heldStateCodec } from './input-required.ts';
import { type ToolsCallParams, toolsCallParams } from './tools-call.ts';
import { forwardLogsDuring, forwardUpstreamLogs, type LogTarget } from './upstream-logs.ts';

export interface GenerationServerOptions {
  /** What tools/list waits for first: servers still connecting, at most startup_wait_ms (stdio). */
  whenSettled?: () => Promise<void>;
}

/** A server instance of `dialect` for the generation and caller `context` names (an McpServerFactory). */
export function createGenerationServer(
  runtime: Runtime,
  dialect: Dialect,
  context: McpRequestContext,
  options: GenerationServerOptions = {},
): Server {
  // The caller the HTTP surface attached to the request (stdio: the administrator).
  const caller = callerOf(context);
  const server = new Server(SERVER_INFO[dialect], {
    capabilities: dialectCapabilities(dialect),
    // The list depends on the caller's token: only that caller may reuse it.
    cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
    // A held call's state comes back sealed; anything else is refused with -32602.
    requestState: { verify: heldStateCodec(runtime).open },
  });
  if (context.era === 'legacy')
    forwardUpstreamLogs(server as unknown as LogTarget, runtime, caller);
  server.setRequestHandler('tools/list', async () => {
    await options.whenSettled?.();
    return { tools: listDialectTools(runtime, dialect, caller) as never };
  });
  const approvalTimeout = () => runtime.config().toolPolicy.approvalTimeoutMs;
  const elicitationOpen = () => channelOpen(runtime.config(), 'elicitation');
  const call = async (params: ToolsCallParams, channel: CallerChannel, signal?: AbortSignal) => {
    try {
      return await callDialectTool(runtime, dialect, params, {
        caller,
        channel,
        signal,
        progress: channel.progress,
      });
    } catch (error) {
      if (error instanceof RpcError) throw new ProtocolError(error.code, error.message, error.data);
      throw error;
    }
  };
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const progress = progressChannel(
      ctx.mcpReq._meta?.progressToken,
      ctx.mcpReq.notify as (n: unknown) => Promise<void>,
    );
    // A 2026 request names its client's capabilities itself (one stdio instance serves many).
    const capabilities =
      context.era === 'modern'
        ? ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
            CLIENT_CAPABILITIES_META_KEY
          ] as ClientCapabilities | undefined)
        : server.getClientCapabilities();
    // A client is asked only while tool_policy.approval_channels lists "elicitation".
    const elicits = capabilities?.elicitation !== undefined && elicitationOpen();
    const params = toolsCallParams(request.params);
    if (context.era === 'modern' && elicits) {
      // Asked with input_required: the program is held in place, the retry carries the answer.
      return (await forwardLogsDuring(runtime, caller, ctx.mcpReq.log, () =>
        callWithInputRequired(runtime, params, ctx, caller, (held, signal) =>
          call(params, { ...progress, ...held }, signal),
        ),
      )) as never;
    }
    // A 2025 client that declared elicitation is asked on its connection; a 2026 one that did
    // not declare it is not asked: its call waits for REST, the dashboard or the CLI.
    const asks = context.era === 'legacy' && elicits;
    const channel: CallerChannel = {
      ...progress,
      ...(asks
        ? elicitationChannel(
            (params, signal, timeout) => ctx.mcpReq.elicitInput(params, { signal, timeout }),
            approvalTimeout,
            elicitationOpen,
          )
        : {}),
    };
    const run = () => call(params, channel, ctx.mcpReq.signal);
    if (context.era === 'legacy') return (await run()) as never;
    return (await forwardLogsDuring(runtime, caller, ctx.mcpReq.log, run)) as never;
  });
  return server;
}
