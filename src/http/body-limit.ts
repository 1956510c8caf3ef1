/**
 * @module max_request_bytes on every route: a declared Content-Length over the limit is refused
 * at once; a chunked body is counted as it arrives and refused as soon as it passes the limit,
 * so nothing larger than the limit is ever buffered. The routes (and the MCP transports, which
 * read the raw request) get the checked copy.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { restErrorBody } from './rest-error.ts';
import { RPC_INVALID_REQUEST, rpcErrorResponse } from './rpc-error-response.ts';
import type { GatewayEnv } from './types.ts';

/** Code of the 413 answer in REST bodies and in the JSON-RPC error's data. */
export const REQUEST_TOO_LARGE = 'REQUEST_TOO_LARGE';
/**
 * After a 413 the rest of the body is read and thrown away, up to this many bytes, so the client
 * reads the answer instead of a connection reset; past it the connection is cut.
 */
const REFUSED_BODY_DISCARD_BYTES = 64 * 1_048_576;

function refuse(
  c: Context<GatewayEnv>,
  incoming: IncomingMessage,
  maxBytes: number,
  size: string,
): Response {
  let discarded = 0;
  incoming.removeAllListeners('data');
  incoming.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > REFUSED_BODY_DISCARD_BYTES) incoming.socket.destroy();
  });
  incoming.resume();
  const message = `the request body (${size}) is larger than max_request_bytes (${maxBytes} bytes); send a smaller body or raise "max_request_bytes" in the config`;
  if (!c.req.path.startsWith('/api/')) {
    return rpcErrorResponse(413, RPC_INVALID_REQUEST, message, {
      data: { code: REQUEST_TOO_LARGE },
    });
  }
  return new Response(
    JSON.stringify(restErrorBody(c.get('requestId'), REQUEST_TOO_LARGE, message)),
    { status: 413, headers: { 'content-type': 'application/json' } },
  );
}

/** The whole body when it is at most `maxBytes`, else undefined as soon as it passes them. */
function readAtMost(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (body: Buffer | undefined) => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish(undefined);
      chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks, size));
    const onError = () => finish(undefined);
    incoming.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** Limits every request body to `maxBytes()` (read per request, so a reloaded config applies). */
export function limitBody(maxBytes: () => number): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const incoming = c.env?.incoming;
    if (!incoming || c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const max = maxBytes();
    const declared = c.req.header('content-length');
    if (declared !== undefined && !c.req.header('transfer-encoding')) {
      // Node's parser never delivers more than the declared length.
      return Number(declared) > max ? refuse(c, incoming, max, `${declared} bytes`) : next();
    }
    const body = await readAtMost(incoming, max);
    if (!body) return refuse(c, incoming, max, 'more');
    const request = c.req.raw;
    c.req.raw = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: new Uint8Array(body),
      signal: request.signal,
    });
    await next();
  };
}
