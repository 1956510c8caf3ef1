/** @module The one error a tools/call handler throws to answer with a JSON-RPC error. */

/**
 * A JSON-RPC error: code mode's refusals of an `execute` call (Arion's codes and messages) and
 * an unknown tool on either dialect. Thrown below the MCP surface (execution) and by it (mcp);
 * each MCP server turns it into its SDK's protocol error in one place, code, message and data kept.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}
