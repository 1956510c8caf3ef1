/**
 * @module DNS-rebinding and cross-site protection for the routes a loopback gateway serves
 * without a key: a browser page on another site can reach 127.0.0.1, but its requests carry
 * a foreign Host (rebinding) or Origin header. Those are refused.
 */
import { isLoopback } from '../config/index.ts';

/** The hostname of a Host or Origin header value, without port or brackets. */
function hostname(value: string): string {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.replace(
      /^\[|\]$/g,
      '',
    );
  } catch {
    return '';
  }
}

/** undefined when the request may use the open routes, else why it may not. */
export function foreignRequest(headers: { host?: string; origin?: string }): string | undefined {
  if (headers.host !== undefined && !isLoopback(hostname(headers.host))) {
    return `the Host header "${headers.host}" is not this machine (DNS rebinding is refused); use 127.0.0.1 or localhost`;
  }
  if (
    headers.origin !== undefined &&
    headers.origin !== 'null' &&
    !isLoopback(hostname(headers.origin))
  ) {
    return `requests from the web origin "${headers.origin}" are refused without an API key`;
  }
  return undefined;
}
