/** @module How an OTLP endpoint is shown in logs and the banner: without credentials or a query. */

/** `endpoint`'s origin and path (a URL's user info or query may hold a key). */
export function shownEndpoint(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.origin}${url.pathname}`;
}
