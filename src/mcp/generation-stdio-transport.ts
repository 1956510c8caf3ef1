/**
 * @module The stdio transport of `codemux stdio` (2.x SDK): on a connection that opened with the
 * 2025 `initialize`, code mode's unknown-tool error keeps Arion's code -32002, which the 2.x SDK
 * would send as -32602 (what the 2026-07-28 spec asks of its own clients).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { TOOL_NOT_FOUND, TOOL_NOT_FOUND_DATA } from './dialects.ts';

export class GenerationStdioTransport extends StdioServerTransport {
  /** Set when the connection is pinned to a 2025-generation instance. */
  legacy = false;

  override send(message: JSONRPCMessage): Promise<void> {
    const error = (message as { error?: { code: number; data?: { codemux?: unknown } } }).error;
    if (this.legacy && error?.data?.codemux === TOOL_NOT_FOUND_DATA.codemux) {
      const { data: _marker, ...rest } = error;
      return super.send({ ...message, error: { ...rest, code: TOOL_NOT_FOUND } } as JSONRPCMessage);
    }
    return super.send(message);
  }
}
