/** @module How a call that threw becomes a CallOutcome (the registry's one place for it). */
import { refusalOf } from './guarded-transport.ts';
import type { CallOutcome } from './types.ts';

/**
 * The SDK's request timeout, checked without importing the SDK: 2.x's SdkError code
 * (SdkErrorCode.RequestTimeout), and 1.x's JSON-RPC code (ErrorCode.RequestTimeout).
 */
const REQUEST_TIMEOUT_CODES: ReadonlySet<unknown> = new Set(['REQUEST_TIMEOUT', -32001]);

export interface FailedCallContext {
  server: string;
  tool: string;
  timeoutMs: number | undefined;
  /** The execution ended (its signal aborted). */
  aborted: boolean;
  /** Whether the connection still stands after the error. */
  connected: boolean;
  /** Why the connection dropped, when it did. */
  dropReason: string | undefined;
}

export function failedCall(error: unknown, context: FailedCallContext): CallOutcome {
  const { server, tool } = context;
  if (context.aborted) return cancelled(server, tool);
  if (REQUEST_TIMEOUT_CODES.has((error as { code?: unknown }).code)) {
    return {
      ok: false,
      code: 'UPSTREAM_TIMEOUT',
      message: `server '${server}' did not answer ${tool} within ${context.timeoutMs} ms`,
    };
  }
  const refused = refusalOf(error);
  if (refused) {
    return {
      ok: false,
      code: refused.codemux_refused,
      message: `${server}.${tool}: ${refused.message}`,
    };
  }
  if (/output schema/.test((error as Error).message)) {
    return {
      ok: false,
      code: 'INVALID_OUTPUT',
      message: `${server}.${tool}: ${(error as Error).message}`,
    };
  }
  if (!context.connected) {
    return {
      ok: false,
      code: 'SERVER_UNAVAILABLE',
      message: `server '${server}' disconnected during ${tool}: ${context.dropReason ?? (error as Error).message}; it is restarted for the next call`,
    };
  }
  return {
    ok: false,
    code: 'UPSTREAM_ERROR',
    message: `${server}.${tool}: ${(error as Error).message}`,
  };
}

export function cancelled(server: string, tool: string): CallOutcome {
  return {
    ok: false,
    code: 'UPSTREAM_ERROR',
    message: `${server}.${tool}: the call was cancelled (the execution ended)`,
  };
}

export function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
