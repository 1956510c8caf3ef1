/** @module Headers on every dashboard response: scripts, styles and connections from this origin only. */
import type { MiddlewareHandler } from 'hono';

/** No inline script or style, no other origin, no framing, forms post only here. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set('content-security-policy', CONTENT_SECURITY_POLICY);
  c.res.headers.set('x-content-type-options', 'nosniff');
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form posts.
  c.res.headers.set('referrer-policy', 'same-origin');
  c.res.headers.set('x-frame-options', 'DENY');
  if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
};
