/**
 * @module The MCP SDK's OAuthClientProvider for one sign-in: the SDK's `auth()` does the
 * protocol (discovery, registration, PKCE, `resource`, the code exchange). This provider
 * keeps what the SDK hands over in memory: at the start it goes sealed into the flow, at the
 * callback the caller writes it to the server's row in one go once the exchange succeeded.
 * The authorization URL is caught, not opened.
 */
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { isLoopback, type ServerConfig } from '../../config/index.ts';
import type { FlowSecret, OAuthVault, StoredTokens } from './vault.ts';

/**
 * SEP-837's `application_type` for redirect URIs: `native` when every one is a loopback `http`
 * URL (a CLI or desktop app, as codemux on `127.0.0.1` is), else `web`. An OpenID authorization
 * server assumes `web` when none is sent, and may then refuse a loopback redirect URI.
 */
export function applicationTypeOf(redirectUris: readonly string[]): 'native' | 'web' {
  const loopback = (uri: string) => {
    try {
      const url = new URL(uri);
      return url.protocol === 'http:' && isLoopback(url.hostname.replace(/^\[|\]$/g, ''));
    } catch {
      return false;
    }
  };
  return redirectUris.length > 0 && redirectUris.every(loopback) ? 'native' : 'web';
}

/** Marks a kept client whose id is codemux's metadata document URL (SEP-991), not a registration. */
const METADATA_DOCUMENT = 'codemux_metadata_document';

/** A kept client that is codemux's metadata document URL rather than a registration. */
export function isMetadataDocumentClient(client: OAuthClientInformationMixed | undefined): boolean {
  return (client as Record<string, unknown> | undefined)?.[METADATA_DOCUMENT] === true;
}

/** Whether the authorization server takes an HTTPS URL as a client id (SEP-991). */
export function takesMetadataDocuments(discovery: OAuthDiscoveryState | undefined): boolean {
  const metadata = discovery?.authorizationServerMetadata as
    | { client_id_metadata_document_supported?: unknown }
    | undefined;
  return metadata?.client_id_metadata_document_supported === true;
}

export interface SignInProviderOptions {
  server: ServerConfig;
  redirectUrl: string;
  vault: OAuthVault;
  /** At the callback: the flow's secret (verifier, discovery, a client it registered). */
  secret?: FlowSecret;
  /** At the start: what codemux discovered itself (the issuer checked) before the SDK runs. */
  discovery?: OAuthDiscoveryState;
  /** `oauth_client_metadata_url`: codemux's client id where the server takes one (SEP-991). */
  clientMetadataUrl?: string;
  /** The scope this sign-in asks for (a registration limited to less is registered again). */
  scope?: string;
}

/** The client codemux uses for `server`: the configured one, else the one registered. */
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

export class SignInProvider implements OAuthClientProvider {
  /** Where the SDK would send the browser (captured, returned to whoever signs in). */
  authorizationUrl: URL | undefined;
  stateValue: string | undefined;
  verifierValue: string | undefined;
  /** What the SDK found and made, kept until the caller commits it. */
  discovery: OAuthDiscoveryState | undefined;
  registered: OAuthClientInformationMixed | undefined;
  tokens_: StoredTokens | undefined;

  constructor(private readonly options: SignInProviderOptions) {
    this.discovery = options.secret?.discovery ?? options.discovery;
    this.registered = options.secret?.client;
  }

  /** Offered to the SDK only where the authorization server takes it (else it registers). */
  get clientMetadataUrl(): string | undefined {
    return takesMetadataDocuments(this.discovery) ? this.options.clientMetadataUrl : undefined;
  }

  /** The `scope` the authorization URL asks for (the SDK's pick), undefined when none. */
  get requestedScope(): string | undefined {
    return this.authorizationUrl?.searchParams.get('scope') || undefined;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.options.server.oauth?.scopes;
    return {
      client_name: 'codemux',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(scopes?.length ? { scope: scopes.join(' ') } : {}),
      // Not in the SDK's schema yet: it sends the metadata as it is, this field too.
      application_type: applicationTypeOf([this.options.redirectUrl]),
    } as OAuthClientMetadata;
  }

  state(): string {
    this.stateValue = randomBytes(32).toString('base64url');
    return this.stateValue;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.options.server.oauth?.clientId)
      return clientOf(this.options.server, this.options.vault);
    if (this.registered) return this.registered;
    // SEP-991: where the authorization server takes it, the metadata document's URL is the
    // client (the SDK uses it when nothing is kept), before any registration kept from earlier.
    if (this.clientMetadataUrl !== undefined) return undefined;
    const kept = await this.options.vault.client(this.options.server.name);
    // A registration for another callback (the gateway moved) is registered again.
    const uris = (kept as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (Array.isArray(uris) && !uris.includes(this.options.redirectUrl)) return undefined;
    // A metadata document's URL kept from earlier, where it no longer applies: register.
    if (isMetadataDocumentClient(kept)) return undefined;
    // Registered for less than a step-up asks (an authorization server may hold a client to
    // the scope it registered with): registered again, for the scope asked now.
    const registeredScope = (kept as { scope?: unknown } | undefined)?.scope;
    if (typeof registeredScope === 'string' && this.options.scope) {
      const allowed = new Set(registeredScope.split(' '));
      if (this.options.scope.split(' ').some((s) => !allowed.has(s))) return undefined;
    }
    return kept;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    // A configured client lives in the config, never in the store.
    if (this.options.server.oauth?.clientId) return;
    const document = client.client_id === this.clientMetadataUrl;
    this.registered = document
      ? (Object.assign({ [METADATA_DOCUMENT]: true }, client) as OAuthClientInformationMixed)
      : client;
  }

  /** A sign-in starts afresh: the SDK must not refresh old tokens instead of asking. */
  tokens(): undefined {
    return undefined;
  }

  saveTokens(tokens: StoredTokens): void {
    this.tokens_ = tokens;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifierValue = verifier;
  }

  codeVerifier(): string {
    const verifier = this.options.secret?.verifier ?? this.verifierValue;
    if (!verifier) throw new Error('this sign-in has no PKCE code verifier');
    return verifier;
  }

  /**
   * A new sign-in gets what codemux discovered just before (its issuer checked), the callback
   * what its sign-in found: the SDK never discovers on its own.
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
}
