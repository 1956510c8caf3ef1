/**
 * @module The SERVER span of one tools/call of a codemux tool (traces on): its facts read from
 * either SDK's request (the caller's W3C context from `params._meta`, else the HTTP headers),
 * and its end read from the answer. Off, it is the no-op span and nothing here is read.
 */

import type { Runtime } from '../execution/index.ts';
import { NO_SPAN, TOOL_ERROR, type TraceSpan, tracing } from '../telemetry/index.ts';
import { CODE_EXECUTION_TOOL } from './code-execution-tool.ts';
import type { Dialect } from './dialects.ts';
import { EXECUTE_TOOL } from './execute-tool.ts';

/** What a tools/call request tells its span, whichever SDK received it. */
export interface ToolCallRequest {
  /** `params.name`. */
  name: string;
  /** `params._meta` (and, from a 2026-07-28 request, its lifted envelope). */
  meta?: unknown;
  envelope?: unknown;
  /** One HTTP request header (none on stdio). */
  header?: (name: string) => string | null | undefined;
  sessionId?: string;
  protocolVersion?: string;
  requestId?: string | number;
}

/** The codemux tool `name` is on `dialect`, or undefined: a name no tool has stays out of the span. */
function knownTool(runtime: Runtime, dialect: Dialect, name: string): string | undefined {
  if (dialect === 'codemode') return name === EXECUTE_TOOL ? name : undefined;
  if (name === CODE_EXECUTION_TOOL) return name;
  return runtime.codeTools?.find(name) ? name : undefined;
}

/** `key` of an object-shaped `_meta`, when it is a string. */
function metaString(meta: unknown, key: string): string | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const value = (meta as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/** The SERVER span of the tools/call `request` describes; NO_SPAN when traces are off. */
export function toolCallSpan(
  runtime: Runtime,
  dialect: Dialect,
  request: ToolCallRequest,
): TraceSpan {
  const current = tracing();
  if (!current.enabled) return NO_SPAN;
  // `_meta` is the MCP conventions' carrier; the HTTP header counts only without it.
  const fromMeta =
    metaString(request.meta, 'traceparent') ?? metaString(request.envelope, 'traceparent');
  const traceparent = fromMeta ?? request.header?.('traceparent') ?? undefined;
  const tracestate = fromMeta
    ? (metaString(request.meta, 'tracestate') ?? metaString(request.envelope, 'tracestate'))
    : (request.header?.('tracestate') ?? undefined);
  return current.toolCall({
    tool: knownTool(runtime, dialect, request.name),
    sessionId: request.sessionId,
    protocolVersion: request.protocolVersion,
    requestId: request.requestId,
    traceparent,
    tracestate,
  });
}

/** A thrown error's `error.type`: its JSON-RPC code, else its class's name. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return String(code);
  return error instanceof Error ? error.name : 'Error';
}

/**
 * Answers a tools/call under `span`, ending it with `tool_error` for a result with `isError`,
 * or the thrown error's code; the answer itself is untouched.
 */
export async function traced<T>(span: TraceSpan, answer: () => Promise<T>): Promise<T> {
  if (!span.recording) return answer();
  try {
    const result = await tracing().within(span, answer);
    span.end((result as { isError?: unknown } | null)?.isError === true ? TOOL_ERROR : undefined);
    return result;
  } catch (error) {
    span.end(errorType(error));
    throw error;
  }
}
