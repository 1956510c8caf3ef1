/** @module How a call that threw becomes a CallOutcome (the registry's one place for it). */
import { refusalOf } from './guarded-transport.ts';
import { LINE_BOUND_REASON } from './line-deadline.ts';
import type { SecretMask } from './secret-mask.ts';
import type { CallOutcome } from './types.ts';

/**
 * The most of an upstream's transport error text (an HTTP error page, a socket error, why the
 * connection dropped) a call error quotes, in UTF-8 bytes: enough for a status line and a
 * reason, too little to carry a page that echoes a request back.
 */
export const UPSTREAM_ERROR_EXCERPT_BYTES = 512;
/** The most of a JSON-RPC error the server answered (why it refused the call: bad arguments...) a call error quotes, in UTF-8 bytes. */
export const UPSTREAM_RPC_ERROR_BYTES = 4096;

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
  /** The server's credentials, masked out of whatever the server's error says before it is cut. */
  secrets: Pick<SecretMask, 'excerpt'>;
}

/** A JSON-RPC error the server answered carries its numeric code; transport errors do not. */
const isRpcError = (error: unknown) => typeof (error as { code?: unknown })?.code === 'number';

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
  const said = String((error as Error)?.message ?? error);
  const { secrets } = context;
  if (/output schema/.test(said)) {
    return {
      ok: false,
      code: 'INVALID_OUTPUT',
      message: `${server}.${tool}: ${secrets.excerpt(said, UPSTREAM_RPC_ERROR_BYTES)}`,
    };
  }
  if (!context.connected) {
    const why = secrets.excerpt(context.dropReason ?? said, UPSTREAM_ERROR_EXCERPT_BYTES);
    // The server broke a bound on its own output (a line too long, stalled, endless): its error.
    if (why.startsWith(LINE_BOUND_REASON)) {
      return {
        ok: false,
        code: 'UPSTREAM_ERROR',
        message: `${server}.${tool}: ${why}; server '${server}' is restarted for the next call`,
      };
    }
    return {
      ok: false,
      code: 'SERVER_UNAVAILABLE',
      message: `server '${server}' disconnected during ${tool}: ${why}; it is restarted for the next call`,
    };
  }
  const bound = isRpcError(error) ? UPSTREAM_RPC_ERROR_BYTES : UPSTREAM_ERROR_EXCERPT_BYTES;
  return {
    ok: false,
    code: 'UPSTREAM_ERROR',
    message: `${server}.${tool}: ${secrets.excerpt(said, bound)}`,
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
