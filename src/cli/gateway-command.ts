/**
 * @module Commands that work only through the running gateway (`tools`, `approvals`, `auth`): what it
 * holds is what decides, so a standalone answer would not reach it.
 */
import { CliError } from './cli-error.ts';
import { EXIT_FAILED } from './exit-codes.ts';
import { type FoundGateway, findGateway, gatewayRequest } from './gateway-client.ts';
import { loadConfigOrExit } from './load-config.ts';
import type { GatewayFlags } from './options.ts';

/** How long one REST call of these commands may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The running gateway, or a CliError (exit 1) saying why it is needed (`why`, e.g. "held tools
 * are judged and approved by the running gateway") and how to start it; undefined after a bad config.
 */
export async function requireGateway(
  flags: GatewayFlags & { config?: string },
  why: string,
): Promise<FoundGateway | undefined> {
  const config = loadConfigOrExit(flags);
  if (!config) return undefined;
  const gateway = await findGateway(config, flags);
  if (!gateway) {
    throw new CliError(
      `no codemux gateway answers at the config's "listen": ${why} (start it with \`codemux serve\`, or name it with --url)`,
      EXIT_FAILED,
    );
  }
  return gateway;
}

/** The gateway's answer, or its refusal (status >= 400) as a CliError with its message (exit 1). */
export async function gatewayCall(
  gateway: FoundGateway,
  method: 'GET' | 'POST',
  path: string,
  timeoutMs = REQUEST_TIMEOUT_MS,
  requestBody?: unknown,
): Promise<Record<string, unknown>> {
  const { status, body } = await gatewayRequest(gateway, method, path, {
    timeoutMs,
    body: requestBody,
  });
  if (status >= 400) {
    const error = body.error as { message?: string } | undefined;
    throw new CliError(error?.message ?? `the gateway answered ${status}`, EXIT_FAILED);
  }
  return body;
}
