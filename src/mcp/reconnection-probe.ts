/**
 * @module `test_reconnection`, the unlisted probe of SEP-1699 that the MCP conformance suite
 * calls: the server closes the call's SSE stream before answering, and the client must resume
 * with Last-Event-ID to get the result from the session's event store. It touches nothing else.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const RECONNECTION_PROBE_TOOL = 'test_reconnection';

/** Closes the request's SSE stream (when the transport has one), then answers. */
export function reconnectionProbe(extra: { closeSSEStream?: () => void }): CallToolResult {
  extra.closeSSEStream?.();
  return { content: [{ type: 'text', text: 'Reconnection test completed successfully' }] };
}
