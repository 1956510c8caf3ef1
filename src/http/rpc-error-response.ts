/** @module The one JSON-RPC error answer the HTTP surface builds itself (outside an MCP server). */

export type RpcId = string | number | null;

/** JSON-RPC's parse error: the body is not JSON. */
export const RPC_PARSE_ERROR = -32700;
/** JSON-RPC's invalid request (the body is refused before it is read). */
export const RPC_INVALID_REQUEST = -32600;
/** Codes of the implementation-defined range the gateway uses for its own refusals. */
export const RPC_SERVER_ERROR = -32000;
export const RPC_UNAUTHORIZED = -32001;

export interface RpcErrorOptions {
  /** Machine-readable detail (`{code: 'REQUEST_TOO_LARGE'}`); omitted when undefined. */
  data?: unknown;
  /** The request answered; null when it is not known. */
  id?: RpcId;
  /** Headers beside content-type (WWW-Authenticate, Connection). */
  headers?: Record<string, string>;
}

/** `{jsonrpc: '2.0', error: {code, message, data?}, id}`: undefined members are left out. */
export function rpcErrorBody(
  code: number,
  message: string | undefined,
  data?: unknown,
  id: RpcId = null,
) {
  return { jsonrpc: '2.0' as const, error: { code, message, data }, id };
}

/** A JSON-RPC error as an HTTP response with `status`. */
export function rpcErrorResponse(
  status: number,
  code: number,
  message: string | undefined,
  options: RpcErrorOptions = {},
): Response {
  return new Response(JSON.stringify(rpcErrorBody(code, message, options.data, options.id)), {
    status,
    headers: { 'content-type': 'application/json', ...options.headers },
  });
}
