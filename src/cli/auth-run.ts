/**
 * @module `codemux auth login|status|logout` at work: OAuth sign-in to http/sse upstream servers,
 * through the running gateway (the browser comes back to its /oauth/callback, and the
 * tokens it keeps are the ones its connections use).
 */
import type { OAuthStanding, SignInFlowView, SignInStart } from '../upstream/index.ts';
import { DEFAULT_LOGIN_TIMEOUT_S } from './auth.ts';
import { CliError } from './cli-error.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { gatewayCall, requireGateway } from './gateway-command.ts';
import type { GatewayFlags } from './options.ts';
import { printJson } from './output.ts';
import { renderTable } from './table.ts';

interface Flags extends GatewayFlags {
  config?: string;
  output?: string;
  timeout?: string;
}

/** One wait of `auth login` at the gateway, and the request's own bound beside it. */
const WAIT_STEP_MS = 25_000;

const reachGateway = (flags: Flags) =>
  requireGateway(flags, 'sign-ins complete at the running gateway, which keeps the tokens');

const path = (server: string, action: string) =>
  `/api/v1/servers/${encodeURIComponent(server)}/auth/${action}`;

function timeoutSeconds(flags: Flags): number {
  if (flags.timeout === undefined) return DEFAULT_LOGIN_TIMEOUT_S;
  const seconds = Number(flags.timeout);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) {
    throw new CliError('--timeout must be a whole number of seconds from 1 to 3600', EXIT_USAGE);
  }
  return seconds;
}

export async function login(server: string, flags: Flags): Promise<void> {
  const seconds = timeoutSeconds(flags);
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const started = (await gatewayCall(
    gateway,
    'POST',
    path(server, 'login'),
  )) as unknown as SignInStart;
  process.stdout.write(
    `Open this URL in a browser to sign in to ${server}:\n\n  ${started.authorization_url}\n\n`,
  );
  process.stderr.write(`waiting for the sign-in (up to ${seconds} s; Ctrl-C stops waiting)\n`);
  const until = Date.now() + seconds * 1000;
  let flow: SignInFlowView | undefined;
  while (Date.now() < until) {
    const waitMs = Math.min(WAIT_STEP_MS, Math.max(0, until - Date.now()));
    flow = (await gatewayCall(
      gateway,
      'GET',
      `/api/v1/auth/flows/${encodeURIComponent(started.flow_id)}?wait_ms=${waitMs}`,
      waitMs + 10_000,
    )) as unknown as SignInFlowView;
    if (flow.status !== 'pending' && flow.status !== 'exchanging') break;
  }
  if (flags.output === 'json') await printJson(flow ?? started);
  if (flow?.status === 'completed') {
    if (flags.output !== 'json') process.stdout.write(`signed in to ${server}\n`);
    return;
  }
  if (flow?.status === 'failed' || flow?.status === 'expired') {
    throw new CliError(`the sign-in to ${server} failed: ${flow.error}`, EXIT_FAILED);
  }
  throw new CliError(
    `no sign-in to ${server} arrived within ${seconds} s; run \`codemux auth login ${server}\` again (the URL above stops working at ${started.expires_at})`,
    EXIT_FAILED,
  );
}

type StatusItem = OAuthStanding & { protocol: string; state?: string };

export async function status(flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const items = ((await gatewayCall(gateway, 'GET', '/api/v1/auth')).items ?? []) as StatusItem[];
  if (flags.output === 'json') {
    await printJson({ items });
    return;
  }
  if (items.length === 0) {
    process.stdout.write('no http or sse servers in the config (OAuth applies to those)\n');
    return;
  }
  process.stdout.write(
    renderTable(
      ['SERVER', 'STATE', 'SIGNED IN', 'EXPIRES', 'SCOPES', 'CLIENT', 'REASON'],
      items.map((s) => [
        s.server,
        s.state ?? '',
        s.signed_in ? 'yes' : 'no',
        s.expires_at ?? '',
        s.scopes.join(' '),
        s.client ?? '',
        s.reason ?? '',
      ]),
    ),
  );
  const waiting = items.filter((s) => s.state === 'needs_auth').map((s) => s.server);
  if (waiting.length > 0) {
    process.stdout.write(
      `sign in with: ${waiting.map((s) => `codemux auth login ${s}`).join('; ')}\n`,
    );
  }
}

export async function logout(server: string, flags: Flags): Promise<void> {
  const gateway = await reachGateway(flags);
  if (!gateway) return;
  const { request_id: _requestId, ...body } = await gatewayCall(
    gateway,
    'POST',
    path(server, 'logout'),
  );
  if (flags.output === 'json') {
    await printJson(body);
    return;
  }
  process.stdout.write(
    body.signed_out
      ? `signed out of ${server}: its tokens are forgotten (sign in again with \`codemux auth login ${server}\`)\n`
      : `${server} had no tokens\n`,
  );
}
