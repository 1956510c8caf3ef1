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
import type { ServerConfig } from '../../config/index.ts';
import type { FlowSecret, OAuthVault, StoredTokens } from './vault.ts';

export interface SignInProviderOptions {
  server: ServerConfig;
  redirectUrl: string;
  vault: OAuthVault;
  /** At the callback: the flow's secret (verifier, discovery, a client it registered). */
  secret?: FlowSecret;
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
    this.discovery = options.secret?.discovery;
    this.registered = options.secret?.client;
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
    };
  }

  state(): string {
    this.stateValue = randomBytes(32).toString('base64url');
    return this.stateValue;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.options.server.oauth?.clientId)
      return clientOf(this.options.server, this.options.vault);
    if (this.registered) return this.registered;
    const kept = await this.options.vault.client(this.options.server.name);
    // A registration for another callback (the gateway moved) is registered again.
    const uris = (kept as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (Array.isArray(uris) && !uris.includes(this.options.redirectUrl)) return undefined;
    return kept;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    // A configured client lives in the config, never in the store.
    if (this.options.server.oauth?.clientId) return;
    this.registered = client;
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

  /** A new sign-in discovers afresh; the callback reuses what its sign-in found. */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.options.secret ? this.discovery : undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
}
