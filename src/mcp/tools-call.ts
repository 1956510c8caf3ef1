/**
 * @module tools/call with one check of its params: the SDK's Server would parse every request
 * twice more with zod (CallToolRequestSchema) and every result once, on each call; codemux's
 * services validate the arguments themselves, with errors that name the field.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** Only the method: the params are checked once, by toolsCallParams. */
const TOOLS_CALL_REQUEST = z.looseObject({ method: z.literal('tools/call') });

export interface ToolsCallParams {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * What a handler gets besides the params: the SDK's request extra (auth info, the request's
 * id, cancellation signal and progress token, notifications on its stream, closeSSEStream).
 */
export type ToolsCallExtra = {
  authInfo?: { extra?: Record<string, unknown> };
  closeSSEStream?: () => void;
  requestId?: string | number;
  /** The MCP session (Streamable HTTP). */
  sessionId?: string;
  /** The HTTP request's headers (lower-case names), on HTTP transports. */
  requestInfo?: { headers?: Record<string, string | string[] | undefined> };
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (notification: ServerNotification) => Promise<void>;
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The params of a tools/call request, or InvalidParams naming the field and the fix. */
export function toolsCallParams(params: unknown): ToolsCallParams {
  if (!isPlainObject(params))
    throw new McpError(ErrorCode.InvalidParams, 'tools/call: params must be an object');
  const { name, arguments: args } = params;
  if (typeof name !== 'string')
    throw new McpError(
      ErrorCode.InvalidParams,
      'tools/call: params.name must be a string (the tool to call)',
    );
  if (args !== undefined && !isPlainObject(args))
    throw new McpError(
      ErrorCode.InvalidParams,
      `tools/call: params.arguments must be an object of the tool's arguments (got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args})`,
    );
  return { name, arguments: args ?? {} };
}

/**
 * Installs `handler` as `server`'s tools/call handler, registered past the Server's own
 * validating wrapper (Protocol's registration still checks the handler capability); it
 * answers a CallToolResult, or a CreateTaskResult to a task-augmented call.
 */
export function onToolsCall(
  server: Server,
  handler: (
    params: ToolsCallParams,
    extra: ToolsCallExtra,
    raw: unknown,
  ) => Promise<CallToolResult | Record<string, unknown>>,
): void {
  const register = Protocol.prototype.setRequestHandler as unknown as (
    this: Server,
    schema: typeof TOOLS_CALL_REQUEST,
    handler: (
      request: { params?: unknown },
      extra: ToolsCallExtra,
    ) => Promise<CallToolResult | Record<string, unknown>>,
  ) => void;
  // The raw params too: a task-augmented call's `task` is not one of the tool's params.
  register.call(server, TOOLS_CALL_REQUEST, (request, extra) =>
    handler(toolsCallParams(request.params), extra, request.params),
  );
}
