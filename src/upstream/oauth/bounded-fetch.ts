/**
 * @module The fetch codemux gives the SDK for talking to authorization servers and metadata
 * documents: each request bounded in time and each answer in size (a hostile or stuck server
 * must not hold a refresh lock or fill memory), and error text an OAuth answer can put in a
 * message, cut short and never a raw body.
 */
import type { FetchLike } from './types.ts';

/** One request to an authorization server, metadata included. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;
/** One answer's body (metadata, registrations and tokens are a few KiB). */
export const OAUTH_MAX_RESPONSE_BYTES = 1_048_576;
/** What of an authorization server's own words goes into a message. */
const MAX_REASON_CHARS = 300;

async function boundedBody(response: Response, limit: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new Error(`the answer of ${response.url} is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** fetch with a deadline and a size bound on the answer (read whole, then handed over). */
export function boundedFetch(
  timeoutMs = OAUTH_REQUEST_TIMEOUT_MS,
  maxBytes = OAUTH_MAX_RESPONSE_BYTES,
): FetchLike {
  return async (url, init) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
    });
    const body = await boundedBody(response, maxBytes);
    return new Response(response.status === 204 || response.status === 304 ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * An error's text fit for a log line, the store and a page: the SDK puts a non-JSON error
 * body in its message ("Raw body: ..."), which may echo what was sent; that part is dropped.
 */
export function reasonOf(error: unknown): string {
  const text = (error as Error)?.message || String(error);
  const cut = text.split(/\s*Raw body:/)[0]!.trim() || 'no description';
  return cut.length > MAX_REASON_CHARS ? `${cut.slice(0, MAX_REASON_CHARS)}…` : cut;
}

/** Text an authorization server sent through the browser (error_description), cut the same way. */
export function shortText(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text;
}
