/**
 * @module Refreshing one server's access token with the SDK's `refreshAuthorization`, under
 * the store's refresh lock: on PostgreSQL two instances never refresh the same token at once,
 * and the one that waited finds the token already new and uses it.
 */
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ServerConfig } from '../../config/index.ts';
import type { FetchLike } from './types.ts';
import type { OAuthVault, StoredTokens } from './vault.ts';

export type RefreshOutcome =
  | { ok: true; tokens: StoredTokens }
  /** `permanent`: the authorization server refused (sign in again); else try again later. */
  | { ok: false; permanent: boolean; reason: string };

const sdkAuth = () => import('@modelcontextprotocol/sdk/client/auth.js');
const sdkErrors = () => import('@modelcontextprotocol/sdk/server/auth/errors.js');

/** The client the tokens were issued to: the configured one, else the one registered. */
export async function clientOf(
  server: ServerConfig,
  vault: OAuthVault,
): Promise<OAuthClientInformationMixed | undefined> {
  const configured = server.oauth;
  if (configured?.clientId) {
    return {
      client_id: configured.clientId,
      ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}),
    };
  }
  return vault.client(server.name);
}

/**
 * Refreshes `server`'s token unless it changed meanwhile: `stale` is the access token a 401
 * refused (any other one is already newer); without it, a token that no longer expires within
 * `leadMs` is left alone (another instance refreshed it first).
 */
export async function refreshTokens(
  server: ServerConfig,
  vault: OAuthVault,
  options: { stale?: string; leadMs: number; fetch: FetchLike },
): Promise<RefreshOutcome> {
  const name = server.name;
  const url = server.url!;
  return vault.store.withRefreshLock(name, async () => {
    vault.invalidate(name);
    const current = await vault.tokens(name, url);
    if (!('tokens' in current)) return { ok: false, permanent: true, reason: current.reason };
    const { tokens, expiresAt } = current;
    if (options.stale !== undefined && tokens.access_token !== options.stale) {
      return { ok: true, tokens };
    }
    if (
      options.stale === undefined &&
      (expiresAt === undefined || expiresAt - Date.now() > options.leadMs)
    ) {
      return { ok: true, tokens };
    }
    if (!tokens.refresh_token) {
      return {
        ok: false,
        permanent: true,
        reason: 'the access token expired and the authorization server gave no refresh token',
      };
    }
    const { discoverOAuthServerInfo, refreshAuthorization } = await sdkAuth();
    const { OAuthError, ServerError } = await sdkErrors();
    try {
      const discovery =
        (await vault.discovery(name, url)) ??
        (await discoverOAuthServerInfo(url, { fetchFn: options.fetch }));
      const clientInformation = await clientOf(server, vault);
      if (!clientInformation) {
        return { ok: false, permanent: true, reason: 'the registered OAuth client is gone' };
      }
      const refreshed = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation,
        refreshToken: tokens.refresh_token,
        // Verbatim, as the SDK's own auth() sends it.
        resource: discovery.resourceMetadata?.resource,
        fetchFn: options.fetch,
      });
      const next: StoredTokens = { ...refreshed, issuer: tokens.issuer };
      await vault.saveTokens(name, url, next);
      return { ok: true, tokens: next };
    } catch (error) {
      const refused = error instanceof OAuthError && !(error instanceof ServerError);
      const message = (error as Error).message || 'no description';
      return {
        ok: false,
        permanent: refused,
        reason: refused
          ? `the authorization server refused the refresh (${(error as InstanceType<typeof OAuthError>).errorCode}: ${message})`
          : `the token could not be refreshed: ${message}`,
      };
    }
  });
}
