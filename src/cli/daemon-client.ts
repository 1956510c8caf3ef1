/** @module Finds a running codemux daemon at the config's listen address and talks REST to it. */
import type { ResolvedConfig } from '../config/index.ts';
import { readAdminKey } from '../store/admin-key.ts';

/** How long the CLI waits for /healthz (a refused connection fails at once; this bounds a listener that hangs). */
const PROBE_TIMEOUT_MS = 2000;
/** The client waits this much longer than the execution's own timeout. */
export const CLIENT_GRACE_MS = 30_000;

export interface Daemon {
  url: string;
  key: string;
}

/** The daemon's base URL for a listen address (a wildcard host is reached on loopback). */
export function daemonUrl(config: ResolvedConfig): string {
  const host =
    config.listenHost === '0.0.0.0' || config.listenHost === '' ? '127.0.0.1' : config.listenHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.listenPort}`;
}

/** The daemon when one answers and the admin key is known; undefined means run standalone. */
export async function findDaemon(config: ResolvedConfig): Promise<Daemon | undefined> {
  const url = daemonUrl(config);
  try {
    const response = await fetch(`${url}/healthz`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = (await response.json()) as { name?: string };
    if (body.name !== 'codemux') return undefined;
  } catch {
    return undefined;
  }
  const key = readAdminKey(config);
  return key ? { url, key: key.key } : undefined;
}

/** A REST call to the daemon; resolves with the status and the JSON body. */
export async function daemonRequest(
  daemon: Daemon,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; timeoutMs: number },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { 'x-api-key': daemon.key, 'content-type': 'application/json' },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
