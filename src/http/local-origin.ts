/**
 * @module DNS-rebinding and cross-site protection for the routes a loopback gateway serves
 * without a key: a browser page on another site can reach 127.0.0.1, but its requests carry
 * a foreign Host (rebinding) or Origin header. Only loopback names with the listen port pass.
 */
import { isLoopback } from '../config/index.ts';

/** Hostname and port of a Host header (`name:port`, `[::1]:port`), or undefined when malformed. */
function parseHost(value: string): { name: string; port: string } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]/?#@\s]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  return { name: match[1]!.replace(/^\[|\]$/g, '').toLowerCase(), port: match[2] ?? '80' };
}

/** The hostname of an Origin (`http://localhost:3000`), or undefined for `null` and non-web origins. */
function originHost(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.origin !== value.replace(/\/$/, '')) return undefined;
    return url.hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/** undefined when the request may use the open routes, else why it may not. */
export function foreignRequest(
  headers: { host?: string; origin?: string },
  listenPort: number,
): string | undefined {
  const host = headers.host === undefined ? undefined : parseHost(headers.host);
  if (!host || !isLoopback(host.name) || host.port !== String(listenPort)) {
    return `the Host header "${headers.host ?? ''}" is not this gateway (DNS rebinding is refused); without an API key use http://127.0.0.1:${listenPort} or http://localhost:${listenPort}, or send the key`;
  }
  if (headers.origin !== undefined) {
    const name = originHost(headers.origin);
    if (name === undefined || !isLoopback(name)) {
      return `requests from the web origin "${headers.origin}" are refused without an API key; only loopback origins (http://localhost, http://127.0.0.1, http://[::1]) may call without one`;
    }
  }
  return undefined;
}
