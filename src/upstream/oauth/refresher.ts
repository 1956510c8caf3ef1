/**
 * @module Refreshing one server's access token with the SDK's `refreshAuthorization`, under
 * the store's refresh lock: two instances (or processes) never refresh the same token at
 * once, and the one that waited finds the token already new and uses it. Only an answer that
 * says the grant is gone ends the sign-in; anything passing (network, 5xx, 429,
 * temporarily_unavailable) is tried again later. With a pacer, a refresh that would come too
 * soon after the last one (or after failures) is not sent: the outcome says when it may be.
 */
import type { ServerConfig } from '../../config/index.ts';
import { boundedFetch, reasonOf } from './bounded-fetch.ts';
import { type RefreshPacer, refreshIntervalOf } from './refresh-pacer.ts';
import { clientOf } from './sign-in-provider.ts';
import type { OAuthVault, StoredTokens } from './vault.ts';

export type RefreshOutcome =
  | { ok: true; tokens: StoredTokens; expiresAt: number | undefined }
  /**
   * `permanent`: the sign-in is over (the tokens were forgotten); else try again at `retryAt`
   * (epoch ms, when paced). `paced`: nothing was sent, it is too soon after the last refresh.
   */
  | { ok: false; permanent: boolean; reason: string; retryAt?: number; paced?: boolean };

/** OAuth errors that mean the refresh token or the client will never work again. */
const GRANT_GONE = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client']);

const sdkAuth = () => import('@modelcontextprotocol/sdk/client/auth.js');
const sdkErrors = () => import('@modelcontextprotocol/sdk/server/auth/errors.js');

/**
 * Refreshes `server`'s token unless it changed meanwhile: `stale` is the access token a 401
 * refused (any other one is already newer); without it, a token that no longer expires within
 * `leadMs` is left alone (another instance refreshed it first).
 */
export async function refreshTokens(
  server: ServerConfig,
  vault: OAuthVault,
  options: { stale?: string; leadMs: number; pacer?: RefreshPacer },
): Promise<RefreshOutcome> {
  const name = server.name;
  const url = server.url!;
  return vault.store.withRefreshLock(name, async () => {
    vault.invalidate(name);
    const current = await vault.tokens(name, url);
    if (!('tokens' in current)) return { ok: false, permanent: true, reason: current.reason };
    const { tokens, expiresAt } = current;
    const newer = options.stale !== undefined && tokens.access_token !== options.stale;
    const notDue =
      options.stale === undefined &&
      (expiresAt === undefined || expiresAt - Date.now() > options.leadMs);
    if (newer || notDue) return { ok: true, tokens, expiresAt };
    const end = async (reason: string): Promise<RefreshOutcome> => {
      await vault.clearTokens(name, reason, tokens.access_token);
      return { ok: false, permanent: true, reason };
    };
    if (!tokens.refresh_token) {
      return end('the access token expired and the authorization server gave no refresh token');
    }
    const discovery = await vault.discovery(name, url);
    if (!discovery) return end('what the sign-in discovered is gone; sign in again');
    // The refresh token goes only to the authorization server that issued it.
    if (tokens.issuer && tokens.issuer !== discovery.authorizationServerUrl) {
      return end(
        `the tokens were issued by ${tokens.issuer}, not by ${discovery.authorizationServerUrl}; sign in again`,
      );
    }
    const clientInformation = await clientOf(server, vault);
    if (!clientInformation) return end('the registered OAuth client is gone; sign in again');
    const { pacer } = options;
    const interval = refreshIntervalOf(server);
    const now = Date.now();
    const allowedAt = pacer?.nextAt(interval) ?? 0;
    if (allowedAt > now) {
      return {
        ok: false,
        permanent: false,
        paced: true,
        retryAt: allowedAt,
        reason: `the next refresh may be sent in ${Math.ceil((allowedAt - now) / 1000)} s (refreshes of one server are at least ${interval / 1000} s apart, longer after failures)`,
      };
    }
    pacer?.sent(now);
    const { refreshAuthorization } = await sdkAuth();
    const { OAuthError } = await sdkErrors();
    try {
      const refreshed = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation,
        refreshToken: tokens.refresh_token,
        // Verbatim, as the SDK's own auth() sends it.
        resource: discovery.resourceMetadata?.resource,
        fetchFn: boundedFetch(),
      });
      const next: StoredTokens = { ...refreshed, issuer: tokens.issuer };
      const expiresAt = await vault.saveTokens(name, url, { tokens: next });
      pacer?.settled(true);
      return { ok: true, tokens: next, expiresAt };
    } catch (error) {
      pacer?.settled(false);
      if (error instanceof OAuthError && GRANT_GONE.has(error.errorCode)) {
        return end(
          `the authorization server refused the refresh (${error.errorCode}: ${reasonOf(error)})`,
        );
      }
      return {
        ok: false,
        permanent: false,
        reason: `the token could not be refreshed: ${reasonOf(error)}`,
        ...(pacer ? { retryAt: pacer.nextAt(interval) } : {}),
      };
    }
  });
}
