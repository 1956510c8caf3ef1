/**
 * @module A POST on an MCP session whose connection closes before its answer was sent cancels
 * the requests it carried, as the client's `notifications/cancelled` would: the run they started
 * ends and its pending approvals expire, so nothing held is sent for a client that is gone.
 */

/** The part of a server transport this needs: where the server hears the client's messages. */
interface HeardTransport {
  onmessage?: (message: never) => void;
}

const requestIds = (body: unknown): Array<string | number> =>
  (Array.isArray(body) ? body : [body]).flatMap((message) => {
    const m = message as { method?: unknown; id?: unknown } | null;
    const id = m?.id;
    return typeof m?.method === 'string' && (typeof id === 'string' || typeof id === 'number')
      ? [id]
      : [];
  });

/**
 * Cancels `body`'s requests on `transport`'s server when `request`'s connection closes early
 * (the Node adapter aborts `request.signal` only then, never after a full answer). A stream the
 * server closed itself (polling, closeSSEStream) finished its answer and is not a cancellation.
 */
export function cancelOnClose(request: Request, body: unknown, transport: HeardTransport): void {
  const ids = requestIds(body);
  if (ids.length === 0) return;
  request.signal.addEventListener(
    'abort',
    () => {
      for (const requestId of ids) {
        const cancelled = {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId, reason: 'the connection closed before the answer was sent' },
        };
        transport.onmessage?.(cancelled as never);
      }
    },
    { once: true },
  );
}
