/**
 * @module codemux's OAuth client metadata document (SEP-991, draft-ietf-oauth-client-id-metadata-
 * document): with `oauth_client_metadata_url` set, an authorization server that advertises
 * `client_id_metadata_document_supported` takes that URL as codemux's client id and fetches this
 * document from it instead of codemux registering itself.
 */
import type { ServerConfig } from '../../config/index.ts';
import { applicationTypeOf } from './sign-in-provider.ts';

/** The document the authorization server fetches: a public client (PKCE only), never a secret. */
export interface ClientMetadataDocument {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  application_type: 'native' | 'web';
}

/**
 * The document for `url`: every redirect URI a sign-in may use (the gateway's callback, and each
 * http/sse server's `oauth.redirect_uri`), since the authorization server accepts only those.
 */
export function clientMetadataDocument(
  url: string,
  callbackUrl: string,
  servers: readonly ServerConfig[],
): ClientMetadataDocument {
  const redirects = new Set([callbackUrl]);
  for (const server of servers) {
    if (server.protocol !== 'stdio' && server.oauth?.redirectUri) {
      redirects.add(server.oauth.redirectUri);
    }
  }
  const redirectUris = [...redirects];
  return {
    client_id: url,
    client_name: 'codemux',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: applicationTypeOf(redirectUris),
  };
}
