/**
 * @module A live Server-Sent Events feed of JSON items (activity records, approvals): a
 * `ready` event, then one event per item as it comes, bounded per client, with keep-alives.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { STREAM_MAX_QUEUED, STREAM_MAX_QUEUED_BYTES, StreamBacklog } from './stream-backlog.ts';
import type { GatewayEnv } from './types.ts';

/** A comment line keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

/**
 * Streams what `subscribe` hears as `event` events until the client goes away. `what` names
 * the items in the comment that says some were skipped (a client reading slower than they come).
 */
export function sseFeed<T>(
  c: Context<GatewayEnv>,
  event: string,
  what: string,
  subscribe: (send: (item: T) => void) => () => void,
): Response {
  const bounds = `the stream keeps at most ${STREAM_MAX_QUEUED} ${what} and ${STREAM_MAX_QUEUED_BYTES / 1_048_576} MiB for a client`;
  return streamSSE(c, async (stream) => {
    const queue = new StreamBacklog();
    let wake: (() => void) | undefined;
    const unsubscribe = subscribe((item) => {
      queue.push(JSON.stringify(item));
      wake?.();
    });
    stream.onAbort(() => {
      unsubscribe();
      wake?.();
    });
    await stream.writeSSE({ event: 'ready', data: '{}' });
    try {
      while (!stream.aborted && !stream.closed) {
        const skipped = queue.takeSkipped();
        if (skipped) {
          // Said as a comment: the client's next reload of the list has them all.
          await stream.write(
            `: ${skipped.count} ${what} skipped, ${skipped.bytes} bytes (this client reads slower than they come; ${bounds})\n\n`,
          );
        }
        const data = queue.shift();
        if (data !== undefined) {
          await stream.writeSSE({ event, data });
          continue;
        }
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, KEEPALIVE_MS);
        });
        // Woken by an item: the keep-alive timer of this wait is not needed any more.
        clearTimeout(timer);
        wake = undefined;
        if (queue.length === 0 && !stream.aborted) await stream.write(': keepalive\n\n');
      }
    } finally {
      unsubscribe();
    }
  });
}
