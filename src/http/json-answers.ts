/**
 * @module Plain JSON answers on a Streamable HTTP session for the requests that can never need a
 * stream (ping, tools/list, tools/call without a progress token from a client that cannot be
 * asked to approve a call, never the reconnection probe);
 * every other POST keeps its SSE stream with the priming event, so clients can still resume.
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RECONNECTION_PROBE_TOOL } from '../mcp/index.ts';
import { type RpcId, rpcErrorResponse } from './rpc-error-response.ts';

/** Methods whose handlers send nothing on the request's stream before their response. */
const STREAMLESS_METHODS = new Set(['ping', 'tools/list', 'tools/call']);

/**
 * True when `body` is one JSON-RPC request that is answered in JSON: the client accepts
 * application/json, the method sends nothing before its response, no progress was asked for.
 * A client that declared elicitation (`elicits`) may be asked to approve one of a tools/call's
 * upstream calls on the call's stream, so its tools/call keeps SSE.
 */
export function answersInJson(body: unknown, accept: string | null, elicits = false): boolean {
  if (!accept?.includes('application/json')) return false;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: unknown };
  if (id === undefined || typeof method !== 'string' || !STREAMLESS_METHODS.has(method))
    return false;
  const p = (typeof params === 'object' && params !== null ? params : {}) as {
    name?: unknown;
    _meta?: { progressToken?: unknown };
  };
  if (p._meta?.progressToken !== undefined) return false;
  if (elicits && method === 'tools/call') return false;
  return !(method === 'tools/call' && p.name === RECONNECTION_PROBE_TOOL);
}

/** The SDK transport's private fields this module switches (checked at install). */
interface Internals {
  _enableJsonResponse: boolean;
  _streamMapping: Map<string, { resolveJson?: unknown }>;
  _requestToStreamMapping: Map<unknown, string>;
  send: WebStandardStreamableHTTPServerTransport['send'];
  close: WebStandardStreamableHTTPServerTransport['close'];
}

/** JSON-RPC's code for a connection closed before the answer (the SDK's ConnectionClosed). */
const CONNECTION_CLOSED = -32000;

/**
 * Lets `transport` answer chosen requests in JSON and the rest over SSE. The SDK reads its
 * `enableJsonResponse` flag synchronously where it opens a request's stream (given a parsed body)
 * and where it sends the response, so the flag is on only during those synchronous sections and
 * off otherwise: concurrent requests of both kinds on one session each get their own mode.
 * Returns the request handler, or undefined when the pinned SDK's internals are not as expected
 * (then every request keeps SSE).
 */
export function jsonAnswers(
  transport: WebStandardStreamableHTTPServerTransport,
):
  | ((request: Request, options: { authInfo: unknown; parsedBody: unknown }) => Promise<Response>)
  | undefined {
  const t = transport as unknown as Internals;
  if (
    t._enableJsonResponse !== false ||
    !(t._streamMapping instanceof Map) ||
    !(t._requestToStreamMapping instanceof Map)
  )
    return undefined;
  const send = t.send.bind(transport);
  t.send = (message: JSONRPCMessage, options) => {
    const id = 'id' in message && !('method' in message) ? message.id : options?.relatedRequestId;
    const streamId = id === undefined ? undefined : t._requestToStreamMapping.get(id);
    if (streamId === undefined || !t._streamMapping.get(streamId)?.resolveJson)
      return send(message, options);
    t._enableJsonResponse = true;
    try {
      return send(message, options);
    } finally {
      t._enableJsonResponse = false;
    }
  };
  // A JSON answer still pending when the session closes is answered with an error: the SDK
  // ends SSE streams at close but leaves JSON requests waiting forever.
  const close = t.close.bind(transport);
  t.close = () => {
    for (const [id, streamId] of t._requestToStreamMapping) {
      const resolve = t._streamMapping.get(streamId)?.resolveJson as
        | ((response: Response) => void)
        | undefined;
      resolve?.(
        rpcErrorResponse(
          200,
          CONNECTION_CLOSED,
          'the session closed before this request was answered',
          { id: id as RpcId },
        ),
      );
    }
    return close();
  };
  return (request, options) => {
    t._enableJsonResponse = true;
    try {
      return transport.handleRequest(request, options as never);
    } finally {
      t._enableJsonResponse = false;
    }
  };
}
