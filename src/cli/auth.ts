/**
 * @module `codemux auth login|status|logout`: registration; the sign-in itself (auth-run.ts, through
 * the running gateway) loads only when the command runs.
 */
import type { Command } from 'commander';
import { lazyAction } from './lazy-action.ts';
import { addConfigOption, addGatewayOptions, addOutputOption } from './options.ts';

/** How long `auth login` waits for the sign-in unless --timeout says. */
export const DEFAULT_LOGIN_TIMEOUT_S = 600;

export function registerAuth(program: Command): void {
  const auth = program
    .command('auth')
    .description('OAuth sign-in to http/sse upstream servers (through the running gateway)');
  const loginCommand = auth
    .command('login <server>')
    .description('Sign in to an upstream server: prints the URL to open, waits for the callback')
    .option(
      '--timeout <seconds>',
      `how long to wait for the sign-in (default ${DEFAULT_LOGIN_TIMEOUT_S})`,
    );
  const statusCommand = auth
    .command('status')
    .description('Each http/sse server: state, signed in, token expiry, scopes');
  const logoutCommand = auth
    .command('logout <server>')
    .description("Forget a server's tokens (it needs sign-in again)");
  for (const command of [loginCommand, statusCommand, logoutCommand]) {
    addConfigOption(command);
    addGatewayOptions(command);
  }
  addOutputOption(loginCommand, ['text', 'json']).action(
    lazyAction(async () => (await import('./auth-run.ts')).login),
  );
  addOutputOption(statusCommand, ['table', 'json']).action(
    lazyAction(async () => (await import('./auth-run.ts')).status),
  );
  addOutputOption(logoutCommand, ['text', 'json']).action(
    lazyAction(async () => (await import('./auth-run.ts')).logout),
  );
}
