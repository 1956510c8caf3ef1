/**
 * @module A sign-in's discovery, done before the MCP SDK's `auth()` is given it: protected resource
 * metadata (RFC 9728), then the authorization server's metadata through the 2.x client, which
 * checks that the document's `issuer` is the one its well-known URL was built from (RFC 8414
 * section 3.3, OpenID Discovery 4.3). The 1.x `auth()` codemux drives skips that check, so a
 * document naming another issuer (a mix-up, a poisoned cache) would have its endpoints used.
 */
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from './types.ts';

const sdkClient = () => import('@modelcontextprotocol/client');

/** What `auth()` would discover for `serverUrl`, with the issuer checked (throws on a mismatch). */
export async function discoverChecked(
  serverUrl: string,
  resourceMetadataUrl: URL | undefined,
  fetchFn: FetchLike,
): Promise<OAuthDiscoveryState> {
  const { discoverOAuthServerInfo } = await sdkClient();
  const info = await discoverOAuthServerInfo(serverUrl, {
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    fetchFn,
  });
  // The two SDK lines parse the same documents with the same schemas.
  return {
    authorizationServerUrl: String(info.authorizationServerUrl),
    ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
    ...(info.resourceMetadata ? { resourceMetadata: info.resourceMetadata } : {}),
    ...(info.authorizationServerMetadata
      ? { authorizationServerMetadata: info.authorizationServerMetadata }
      : {}),
  } as OAuthDiscoveryState;
}
