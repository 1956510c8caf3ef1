/** @module Finds a running codemux gateway at the config's listen address and talks REST to it. */
import type { ResolvedConfig } from '../config/index.ts';
import { readAdminKey } from '../store/admin-key.ts';
import { CliError } from './cli-error.ts';
import type { GatewayFlags } from './options.ts';

/** How long the CLI waits for /healthz (a refused connection fails at once; this bounds a listener that hangs). */
const PROBE_TIMEOUT_MS = 2000;
/** The client waits this much longer than the execution's own timeout. */
export const CLIENT_GRACE_MS = 30_000;

export interface FoundGateway {
  url: string;
  key: string;
}

/** The gateway's base URL for a listen address (a wildcard host is reached on loopback). */
export function gatewayUrl(config: ResolvedConfig): string {
  const host =
    config.listenHost === '0.0.0.0' || config.listenHost === '' ? '127.0.0.1' : config.listenHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.listenPort}`;
}

/** The gateway's base URL from --url / --listen, else from the config; `explicit` when a flag named it. */
function targetUrl(
  config: ResolvedConfig,
  flags: GatewayFlags,
): { url: string; explicit: boolean } {
  if (flags.url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(flags.url);
    } catch {
      throw new CliError(`--url must be a URL like http://127.0.0.1:8080 (got "${flags.url}")`);
    }
    return { url: parsed.origin, explicit: true };
  }
  return { url: gatewayUrl(config), explicit: flags.listen !== undefined };
}

/**
 * The gateway when one answers and the admin key is known; undefined means run standalone.
 * A gateway that refuses the key, or one named by --url/--listen that does not answer, is a
 * CliError (exit 2): running standalone then would hide the mistake.
 */
export async function findGateway(
  config: ResolvedConfig,
  flags: GatewayFlags = {},
): Promise<FoundGateway | undefined> {
  const { url, explicit } = targetUrl(config, flags);
  const where = url.replace(/^https?:\/\//, '');
  let answered = false;
  try {
    const response = await fetch(`${url}/healthz`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = (await response.json()) as { name?: string };
    answered = body.name === 'codemux';
  } catch {}
  if (!answered) {
    if (explicit) throw new CliError(`no codemux gateway answers at ${url} (--url / --listen)`);
    return undefined;
  }
  const key = readAdminKey(config);
  if (!key) {
    if (explicit) {
      throw new CliError(
        `the gateway at ${where} needs an API key: set CODEMUX_API_KEY or "api_key" in the config`,
      );
    }
    return undefined;
  }
  const response = await fetch(`${url}/api/v1/servers`, {
    headers: { 'x-api-key': key.key },
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  }).catch(() => undefined);
  if (response && (response.status === 401 || response.status === 403)) {
    const source = config.apiKeySource ?? key.file ?? 'the config';
    throw new CliError(
      `the gateway at ${where} refused the API key from ${source}; is it another config's gateway?`,
    );
  }
  return { url, key: key.key };
}

/** A REST call to the gateway; resolves with the status and the JSON body. */
export async function gatewayRequest(
  gateway: FoundGateway,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; timeoutMs: number },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    // The gateway records the CLI's runs with surface `cli`.
    headers: {
      'x-api-key': gateway.key,
      'content-type': 'application/json',
      'x-codemux-surface': 'cli',
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
