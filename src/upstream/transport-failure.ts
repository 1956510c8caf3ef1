/**
 * @module Which upstream errors mean the connection itself is broken (reconnect now), which
 * count towards a reconnect when they repeat, and which are just one call's failure.
 */

/** `lost`: reconnect at once; `flaky`: count it (UPSTREAM_FAILURES_BEFORE_RECONNECT in a row reconnect); `call`: this call only. */
export type TransportVerdict = 'lost' | 'flaky' | 'call';

/** Socket-level failures: nothing reached the server or its answer was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** The same failures once the SDK has wrapped them into a message (SSE reconnects lose the cause). */
const NETWORK_TEXT = /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed/i;
/** The server no longer knows our session: it restarted. */
const SESSION_GONE_TEXT = /session not found|Failed to open SSE stream: Not Found/i;

function chain(error: unknown): Array<{ code?: unknown; message?: unknown }> {
  const out: Array<{ code?: unknown; message?: unknown }> = [];
  let current = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    out.push(current);
    current = current.cause as typeof current;
  }
  return out;
}

/** Judges one error an HTTP/SSE transport (or a call through it) reported. */
export function classifyTransportError(error: unknown, protocol: 'http' | 'sse'): TransportVerdict {
  const links = chain(error);
  const text = links.map((e) => String(e.message ?? '')).join(' | ');
  const name = (error as { name?: unknown } | undefined)?.name;
  if (links.some((e) => typeof e.code === 'string' && NETWORK_CODES.has(e.code))) return 'lost';
  if (NETWORK_TEXT.test(text)) return 'lost';
  if (SESSION_GONE_TEXT.test(text)) return 'lost';
  // 2.x's SdkHttpError carries the HTTP status as `status` (1.x's StreamableHTTPError as its code).
  const first = links[0] as { code?: unknown; status?: unknown } | undefined;
  const status = typeof first?.status === 'number' ? first.status : first?.code;
  if (typeof status === 'number' && status === 404 && protocol === 'http') return 'lost';
  if (typeof status === 'number' && status >= 500 && status <= 599) return 'flaky';
  // The legacy SSE stream broke (the EventSource reports it before retrying).
  if (protocol === 'sse' && name === 'SseError') return 'lost';
  return 'call';
}
