/**
 * @module The MCP SDK's OAuthClientProvider for one sign-in: the SDK's `auth()` does the
 * protocol (discovery, registration, PKCE, `resource`, the code exchange); this keeps what it
 * hands over in the vault, and catches the authorization URL instead of opening a browser.
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
import type { OAuthVault, StoredTokens } from './vault.ts';

export interface SignInProviderOptions {
  server: ServerConfig;
  redirectUrl: string;
  vault: OAuthVault;
  /** At the callback: the flow's verifier, and its discovery state is reused. */
  verifier?: string;
}

export class SignInProvider implements OAuthClientProvider {
  /** Where the SDK would send the browser (captured, returned to whoever signs in). */
  authorizationUrl: URL | undefined;
  stateValue: string | undefined;
  verifierValue: string | undefined;

  constructor(private readonly options: SignInProviderOptions) {}

  private get url(): string {
    return this.options.server.url!;
  }

  private get name(): string {
    return this.options.server.name;
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
    const configured = this.options.server.oauth;
    if (configured?.clientId) {
      return {
        client_id: configured.clientId,
        ...(configured.clientSecret ? { client_secret: configured.clientSecret } : {}),
      };
    }
    const registered = await this.options.vault.client(this.name);
    // A registration for another callback (the gateway moved) is registered again.
    const uris = (registered as { redirect_uris?: unknown } | undefined)?.redirect_uris;
    if (Array.isArray(uris) && !uris.includes(this.options.redirectUrl)) return undefined;
    return registered;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // A configured client lives in the config, never in the store.
    if (this.options.server.oauth?.clientId) return;
    await this.options.vault.saveClient(this.name, this.url, client);
  }

  /** A sign-in starts afresh: the SDK must not refresh old tokens instead of asking. */
  tokens(): undefined {
    return undefined;
  }

  async saveTokens(tokens: StoredTokens): Promise<void> {
    await this.options.vault.saveTokens(this.name, this.url, tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifierValue = verifier;
  }

  codeVerifier(): string {
    const verifier = this.options.verifier ?? this.verifierValue;
    if (!verifier) throw new Error('this sign-in has no PKCE code verifier');
    return verifier;
  }

  /** A new sign-in discovers afresh; the callback reuses what the sign-in found. */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    if (this.options.verifier === undefined) return undefined;
    return this.options.vault.discovery(this.name, this.url);
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.options.vault.saveDiscovery(this.name, this.url, state);
  }
}
