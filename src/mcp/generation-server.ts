/**
 * @module The MCP server of the 2.x SDK (`@modelcontextprotocol/server`), which speaks both
 * protocol generations: 2026-07-28 (no session; one instance per HTTP request, or per stdio
 * connection) and 2025-11-25 and older (an `initialize`d stdio connection). It answers with
 * the same dialects as the sessionful server (dialects.ts). A held call is put to a 2025
 * client by elicitation on its connection and to a 2026 one as input_required; a 2026
 * request gets the upstream log lines that arrive while it runs.
 */
import {
  type CallToolRequest,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpRequestContext,
  MissingRequiredClientCapabilityError,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TOOLS_LIST_TTL_MS } from '../config/defaults.ts';
import { RpcError } from '../errors/index.ts';
import { type CallerChannel, channelOpen, type Runtime } from '../execution/index.ts';
import { NO_SPAN, type TraceSpan, tracing } from '../telemetry/index.ts';
import { elicitationChannel, progressChannel } from './approval-channel.ts';
import { callerOf } from './caller.ts';
import {
  callDialectTool,
  type Dialect,
  dialectCapabilities,
  listDialectTools,
  SERVER_INFO,
} from './dialects.ts';
import { inputChannel } from './input-channel.ts';
import { callWithInputRequired, heldStateCodec } from './input-required.ts';
import {
  asksForTask,
  LEGACY_TASKS_CAPABILITY,
  legacyCancelTask,
  legacyCreateTask,
  legacyGetTask,
  legacyListTasks,
  legacyTaskResult,
} from './tasks/legacy-tasks.ts';
import { taskIdOf } from './tasks/task-of.ts';
import { TaskServer } from './tasks/task-server.ts';
import {
  extensionCancelTask,
  extensionCreateTask,
  extensionGetTask,
  extensionUpdateTask,
  negotiatesTasks,
  TASKS_EXTENSION,
  TASKS_EXTENSION_CAPABILITY,
} from './tasks/tasks-extension.ts';
import { toolCallSpan, traced } from './tool-call-span.ts';
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
  // MCP tasks: 2025 connections have them in the core protocol, 2026 ones as an extension.
  const tasks =
    context.era === 'legacy'
      ? { tasks: LEGACY_TASKS_CAPABILITY }
      : { extensions: TASKS_EXTENSION_CAPABILITY };
  const server = new TaskServer(SERVER_INFO[dialect], {
    capabilities: { ...dialectCapabilities(dialect), ...tasks },
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
  const call = (
    params: ToolsCallParams,
    channel: CallerChannel,
    span: TraceSpan,
    signal?: AbortSignal,
  ) =>
    protocolErrors(() =>
      callDialectTool(runtime, dialect, params, {
        caller,
        channel,
        signal,
        progress: channel.progress,
        span,
      }),
    );
  registerTasks(server, runtime, caller, context.era);
  server.setRequestHandler('tools/call', (request, ctx) => {
    const span = tracing().enabled
      ? toolCallSpan(runtime, dialect, {
          name: String(request.params?.name),
          meta: ctx.mcpReq._meta,
          envelope: ctx.mcpReq.envelope,
          header: (name) => ctx.http?.req?.headers.get(name),
          sessionId: ctx.sessionId,
          protocolVersion: versionOf(ctx.mcpReq.envelope) ?? server.getNegotiatedProtocolVersion(),
          requestId: ctx.mcpReq.id,
        })
      : NO_SPAN;
    return traced(span, () => answerToolsCall(request, ctx, span));
  });
  /** One tools/call: asked of its client, held, or run as a task, as its era and capabilities say. */
  const answerToolsCall = async (request: CallToolRequest, ctx: ServerContext, span: TraceSpan) => {
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
    // A task's run outlives this request: no one is asked on it (approvals wait for REST, the
    // dashboard or the CLI) and the call answers with the task at once.
    if (context.era === 'legacy' && asksForTask(request.params)) {
      const notify = (task: Record<string, unknown>) =>
        server.notification({ method: 'notifications/tasks/status', params: task } as never);
      return (await protocolErrors(() =>
        legacyCreateTask(runtime, dialect, params, { caller, channel: {}, span }, notify),
      )) as never;
    }
    if (context.era === 'modern' && negotiatesTasks(capabilities)) {
      return (await protocolErrors(() =>
        extensionCreateTask(runtime, dialect, params, {
          caller,
          channel: {},
          signal: ctx.mcpReq.signal,
          span,
        }),
      )) as never;
    }
    if (context.era === 'modern' && elicits) {
      // Asked with input_required: the program is held in place, the retry carries the answer.
      return (await forwardLogsDuring(runtime, caller, ctx.mcpReq.log, () =>
        callWithInputRequired(runtime, params, ctx, caller, (held, signal) =>
          call(params, { ...progress, ...held }, span, signal),
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
      // An upstream's question is the user's to answer, whatever approval_channels says.
      ...(context.era === 'legacy' && capabilities?.elicitation !== undefined
        ? {
            askInput: inputChannel(
              (params, signal, timeout) =>
                ctx.mcpReq.elicitInput(params as never, { signal, timeout }),
              approvalTimeout,
            ),
          }
        : {}),
    };
    const run = () => call(params, channel, span, ctx.mcpReq.signal);
    if (context.era === 'legacy') return (await run()) as never;
    return (await forwardLogsDuring(runtime, caller, ctx.mcpReq.log, run)) as never;
  };
  return server;
}

/** The protocol version a 2026-07-28 request's envelope claims. */
function versionOf(envelope: unknown): string | undefined {
  const version = (envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}

/** Runs `handler`, turning codemux's RpcError into the SDK's ProtocolError (code, message and data kept). */
async function protocolErrors<T>(handler: () => Promise<T>): Promise<T> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof RpcError) throw new ProtocolError(error.code, error.message, error.data);
    throw error;
  }
}

/** A tasks/ request's params: its task's id, the rest as the SDK lets through. */
const TASK_PARAMS = { params: z.looseObject({ taskId: z.string() }) };

/**
 * MCP tasks' methods for `caller`: 2025-11-25's tasks/get, tasks/result, tasks/list and
 * tasks/cancel on a 2025 connection; the 2026 tasks extension's tasks/get, tasks/update and
 * tasks/cancel otherwise, refused (MissingRequiredClientCapability) to a request whose client
 * capabilities do not name the extension.
 */
function registerTasks(
  server: Server,
  runtime: Runtime,
  caller: ReturnType<typeof callerOf>,
  era: McpRequestContext['era'],
): void {
  // The SDK's types know no tasks methods (2.4.0 has no tasks); its dispatch takes them.
  type Context = { mcpReq: { signal: AbortSignal; envelope?: unknown } };
  const on = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    handler: (request: { params?: unknown }, ctx: Context) => Promise<unknown>,
  ) => void;
  const onExtension = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    schemas: typeof TASK_PARAMS,
    handler: (params: unknown, ctx: Context) => Promise<unknown>,
  ) => void;
  if (era === 'legacy') {
    on('tasks/get', (request) =>
      protocolErrors(() => legacyGetTask(runtime, caller, request.params)),
    );
    on('tasks/result', (request, ctx) =>
      protocolErrors(() => legacyTaskResult(runtime, caller, request.params, ctx.mcpReq.signal)),
    );
    on('tasks/list', () => protocolErrors(() => legacyListTasks(runtime, caller)));
    on('tasks/cancel', (request) =>
      protocolErrors(() => legacyCancelTask(runtime, caller, request.params)),
    );
    return;
  }
  const handlers = {
    'tasks/get': extensionGetTask,
    'tasks/update': extensionUpdateTask,
    'tasks/cancel': extensionCancelTask,
  } as const;
  for (const [method, handler] of Object.entries(handlers)) {
    onExtension(method, TASK_PARAMS, async (params, ctx) => {
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      if (!negotiatesTasks(envelope?.[CLIENT_CAPABILITIES_META_KEY]))
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
          `${method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
        );
      return protocolErrors(() => handler(runtime, caller, taskIdOf(params)));
    });
  }
}
