/** @module What a server that needs an OAuth sign-in answers, and the error a connect ends in then. */

/** DESIGN.md's words for a call to a server in state `needs_auth`. */
export function needsSignInMessage(server: string): string {
  return `${server} needs sign-in: run \`codemux auth login ${server}\``;
}

/**
 * What a call to a server waiting on OAuth is told: DESIGN.md's words, or, when it refuses what a
 * step-up sign-in granted, why (a sign-in is not what it lacks).
 */
export function waitingMessage(entry: {
  config: { name: string };
  needsAuth?: string;
  auth?: { signInRefused?: boolean };
}): string {
  const name = entry.config.name;
  if (entry.auth?.signInRefused && entry.needsAuth) return `server '${name}': ${entry.needsAuth}`;
  return needsSignInMessage(name);
}

/** A connect that cannot go on until someone signs in; `reason` says why (never a token). */
export class NeedsAuthError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`${needsSignInMessage(server)} (${reason})`);
    this.name = 'NeedsAuthError';
  }
}
