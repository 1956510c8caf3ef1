/**
 * @module max_request_bytes on every route: a declared Content-Length over the limit is refused
 * at once; a chunked body is counted as it streams and refused as soon as it passes the limit,
 * so nothing larger than the limit is ever buffered. The MCP transports read the checked copy.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { GatewayEnv } from './types.ts';

/** Code of the 413 answer in REST bodies and in the JSON-RPC error's data. */
export const REQUEST_TOO_LARGE = 'REQUEST_TOO_LARGE';

function tooLarge(c: Context<GatewayEnv>, maxBytes: number): Response {
  const declared = c.req.header('content-length');
  const size = declared && !c.req.header('transfer-encoding') ? `${declared} bytes` : 'more';
  const message = `the request body (${size}) is larger than max_request_bytes (${maxBytes} bytes); send a smaller body or raise "max_request_bytes" in the config`;
  const body = c.req.path.startsWith('/api/')
    ? { ok: false, error: { code: REQUEST_TOO_LARGE, message }, request_id: c.get('requestId') }
    : {
        jsonrpc: '2.0',
        error: { code: -32600, message, data: { code: REQUEST_TOO_LARGE } },
        id: null,
      };
  // The rest of the body is never read: the connection closes after this answer.
  return new Response(JSON.stringify(body), {
    status: 413,
    headers: { 'content-type': 'application/json', connection: 'close' },
  });
}

/** Limits every request body to `maxBytes()` (read per request, so a reloaded config applies). */
export function limitBody(maxBytes: () => number): MiddlewareHandler<GatewayEnv> {
  return (c, next) => {
    const max = maxBytes();
    return bodyLimit({ maxSize: max, onError: (ctx) => tooLarge(ctx, max) })(c, next);
  };
}
