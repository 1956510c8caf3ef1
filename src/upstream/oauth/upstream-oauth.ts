/**
 * @module Upstream OAuth for one running codemux: a ServerAuth per http/sse server for its
 * connection, sign-ins (`codemux auth login`, the dashboard) from the authorization URL to the
 * callback, each server's standing, and sign-out. The protocol is the MCP SDK's client `auth`.
 */

import { OAUTH_FLOW_TTL_MS } from '../../config/defaults.ts';
import { isLoopback, type ServerConfig } from '../../config/index.ts';
import type { OAuthFlow, OAuthStore } from '../../store/index.ts';
import type { Logger } from '../../util/logger.ts';
import type { SecretBox } from '../../util/secret-box.ts';
import { boundedFetch, reasonOf, shortText } from './bounded-fetch.ts';
import { type ClientMetadataDocument, clientMetadataDocument } from './client-metadata-document.ts';
import { discoverChecked } from './discover.ts';
import { RefreshPacer } from './refresh-pacer.ts';
import { ServerAuth } from './server-auth.ts';
import { isMetadataDocumentClient, SignInProvider } from './sign-in-provider.ts';
import type {
  CallbackOutcome,
  OAuthStanding,
  SignInFlowView,
  SignInStart,
  UpstreamAuth,
} from './types.ts';
import { OAuthVault } from './vault.ts';

const sdkAuth = () => import('@modelcontextprotocol/sdk/client/auth.js');
/** Finished sign-ins are kept this long (for whoever still asks how one ended). */
const FLOW_KEPT_MS = 24 * 3_600_000;

export interface UpstreamOAuthOptions {
  store: OAuthStore;
  /** The key's box, made on first use (`CODEMUX_SECRET_KEY` or `data_dir/secret_key`). */
  secretBox: () => SecretBox;
  logger: Logger;
  /** The configured server of that name, as the config is now. */
  server: (name: string) => ServerConfig | undefined;
  /** `http://<listen>/oauth/callback`: where the browser comes back (unless oauth.redirect_uri). */
  callbackUrl: () => string;
  /** `oauth_client_metadata_url`, as the config is now (SEP-991). */
  clientMetadataUrl?: () => string | undefined;
}

/** A sign-in that could not start, or a server it does not apply to; `status` is the HTTP one. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 502,
  ) {
    super(message);
  }
}

export class UpstreamOAuth {
  readonly vault: OAuthVault;
  private readonly handles = new Map<string, ServerAuth>();
  /** Each server's refresh pace, kept across its connections and config edits. */
  private readonly pacers = new Map<string, RefreshPacer>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: UpstreamOAuthOptions) {
    this.vault = new OAuthVault(options.store, options.secretBox);
    // Another instance signed in, refreshed or signed out.
    this.unsubscribe = options.store.onChange((server) => {
      this.vault.invalidate(server);
      void this.handles
        .get(server)
        ?.reload()
        .catch(() => {});
    });
  }

  /** The OAuth side of a connection to `server` (http and sse only). */
  authFor(server: ServerConfig): UpstreamAuth | undefined {
    if (server.protocol === 'stdio' || !server.url) return undefined;
    let pacer = this.pacers.get(server.name);
    if (!pacer) {
      pacer = new RefreshPacer();
      this.pacers.set(server.name, pacer);
    }
    const handle = new ServerAuth(
      server,
      this.vault,
      this.options.logger.child({ server: server.name }),
      pacer,
    );
    const close = handle.close.bind(handle);
    handle.close = () => {
      close();
      if (this.handles.get(server.name) === handle) this.handles.delete(server.name);
    };
    this.handles.set(server.name, handle);
    return handle;
  }

  private redirectFor(server: ServerConfig): string {
    return server.oauth?.redirectUri ?? this.options.callbackUrl();
  }

  private oauthServer(name: string): ServerConfig {
    const server = this.options.server(name);
    if (!server) throw new SignInError(`server not found: ${name}`, 404);
    if (server.protocol === 'stdio' || !server.url) {
      throw new SignInError(
        `${name} is a stdio server: OAuth sign-in applies to http and sse servers (a stdio server gets its credentials through "env")`,
        400,
      );
    }
    return server;
  }

  /**
   * codemux's client metadata document for the servers of the config (SEP-991), or undefined
   * without an `oauth_client_metadata_url`.
   */
  clientMetadataDocument(servers: readonly ServerConfig[]): ClientMetadataDocument | undefined {
    const url = this.options.clientMetadataUrl?.();
    return url ? clientMetadataDocument(url, this.options.callbackUrl(), servers) : undefined;
  }

  /** Starts a sign-in: the URL to open, valid until `expires_at`. */
  async startSignIn(name: string): Promise<SignInStart> {
    const server = this.oauthServer(name);
    const redirectUrl = this.redirectFor(server);
    const { auth } = await sdkAuth();
    const handle = this.handles.get(name);
    const hinted = handle?.resourceMetadataUrl;
    // Config scopes, else the challenge's, else (undefined) the SDK's scopes_supported.
    const scope =
      handle?.signInScope() ??
      (server.oauth?.scopes?.length ? server.oauth.scopes.join(' ') : undefined);
    const clientMetadataUrl = this.options.clientMetadataUrl?.();
    let provider: SignInProvider;
    try {
      const fetchFn = boundedFetch();
      const discovery = await discoverChecked(server.url!, hinted, fetchFn);
      provider = new SignInProvider({
        server,
        redirectUrl,
        vault: this.vault,
        discovery,
        ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
        ...(scope ? { scope } : {}),
      });
      await auth(provider, {
        serverUrl: server.url!,
        ...(scope ? { scope } : {}),
        ...(hinted ? { resourceMetadataUrl: hinted } : {}),
        fetchFn,
      });
    } catch (error) {
      throw new SignInError(`the sign-in to ${name} could not start: ${reasonOf(error)}`, 502);
    }
    if (!provider.authorizationUrl || !provider.stateValue || !provider.verifierValue) {
      throw new SignInError(`the sign-in to ${name} could not start: no authorization URL`, 502);
    }
    const target = new URL(server.url!);
    if (target.protocol === 'http:' && !isLoopback(target.hostname.replace(/^\[|\]$/g, ''))) {
      this.options.logger.warn(
        { server: name },
        'this server is reached over plain http: its tokens travel unencrypted (use https)',
      );
    }
    await this.options.store.trimFlows(new Date(Date.now() - FLOW_KEPT_MS).toISOString());
    const flow = await this.vault.createFlow(
      name,
      provider.stateValue,
      {
        verifier: provider.verifierValue,
        server_url: server.url!,
        redirect_uri: redirectUrl,
        ...(provider.requestedScope ? { scope: provider.requestedScope } : {}),
        ...(provider.discovery ? { discovery: provider.discovery } : {}),
        ...(provider.registered ? { client: provider.registered } : {}),
      },
      OAUTH_FLOW_TTL_MS,
    );
    this.options.logger.info({ server: name, flow_id: flow.id }, 'upstream OAuth sign-in started');
    return {
      flow_id: flow.id,
      server: name,
      authorization_url: provider.authorizationUrl.href,
      expires_at: flow.expires_at,
    };
  }

  /** The browser came back to /oauth/callback: the state is used once, whatever follows. */
  async completeCallback(query: URLSearchParams): Promise<CallbackOutcome> {
    const state = query.get('state');
    if (!state) return { ok: false, status: 400, message: 'the callback has no "state"' };
    const flow = await this.vault.claimFlow(state);
    if (!flow) {
      return {
        ok: false,
        status: 400,
        message:
          'this sign-in is unknown, was already completed or expired; nothing changed (start again with `codemux auth login SERVER`)',
      };
    }
    let outcome: CallbackOutcome | undefined;
    try {
      outcome = await this.exchange(flow, query);
      return outcome;
    } catch (error) {
      outcome = { ok: false, status: 502, server: flow.server, message: reasonOf(error) };
      return outcome;
    } finally {
      // Whatever happened, the flow ends: nobody waits on one left "exchanging".
      const now = new Date().toISOString();
      if (outcome?.ok) {
        await this.options.store.finishFlow(flow.id, 'completed', null, now);
        this.options.logger.info(
          { server: flow.server, flow_id: flow.id },
          'upstream OAuth sign-in completed',
        );
      } else {
        const message = outcome && !outcome.ok ? outcome.message : 'the sign-in failed';
        await this.options.store.finishFlow(flow.id, 'failed', message, now).catch(() => {});
        this.options.logger.warn(
          { server: flow.server, flow_id: flow.id, reason: message },
          'upstream OAuth sign-in failed',
        );
      }
    }
  }

  /** The claimed flow's code exchange, and the sign-in written in one go under the refresh lock. */
  private async exchange(flow: OAuthFlow, query: URLSearchParams): Promise<CallbackOutcome> {
    const fail = (status: 400 | 502, message: string): CallbackOutcome => ({
      ok: false,
      status,
      server: flow.server,
      message,
    });
    const error = query.get('error');
    if (error) {
      const description = query.get('error_description');
      return fail(
        400,
        shortText(
          `the authorization server answered ${error}${description ? `: ${description}` : ''}`,
        ),
      );
    }
    const server = this.options.server(flow.server);
    if (!server?.url) return fail(400, `server ${flow.server} is no longer in the config`);
    const secret = this.vault.flowSecret(flow);
    const redirectUrl = this.redirectFor(server);
    if (secret.server_url !== server.url || secret.redirect_uri !== redirectUrl) {
      return fail(
        400,
        `the config of ${server.name} changed since this sign-in started (its url or redirect URI); sign in again`,
      );
    }
    // RFC 9207: an authorization server that names itself must be the one this sign-in used.
    const iss = query.get('iss');
    const metadata = secret.discovery?.authorizationServerMetadata;
    const issuer = metadata?.issuer;
    // One that promises to name itself and does not: the answer may be another server's (mix-up).
    const promisesIss =
      metadata !== undefined &&
      'authorization_response_iss_parameter_supported' in metadata &&
      metadata.authorization_response_iss_parameter_supported === true;
    if (iss === null && promisesIss) {
      return fail(
        400,
        `the callback has no "iss", yet the authorization server ${issuer} says it sends one (authorization_response_iss_parameter_supported, RFC 9207); nothing changed, sign in again`,
      );
    }
    if (iss !== null && issuer !== undefined && iss !== issuer) {
      return fail(
        400,
        `the callback came from ${shortText(iss)}, not from ${issuer}; nothing changed`,
      );
    }
    const code = query.get('code');
    if (!code) return fail(400, 'the callback has no "code"');
    const provider = new SignInProvider({ server, redirectUrl, vault: this.vault, secret });
    const { auth } = await sdkAuth();
    try {
      await auth(provider, {
        serverUrl: server.url,
        authorizationCode: code,
        fetchFn: boundedFetch(),
      });
    } catch (error) {
      return fail(502, `the code exchange failed: ${reasonOf(error)}`);
    }
    if (!provider.tokens_) return fail(502, 'the code exchange gave no tokens');
    // No `scope` in the answer: what was asked was granted (RFC 6749 5.1); a step-up adds to it.
    const tokens =
      provider.tokens_.scope === undefined && secret.scope
        ? { ...provider.tokens_, scope: secret.scope }
        : provider.tokens_;
    await this.options.store.withRefreshLock(server.name, () =>
      this.vault.saveTokens(server.name, server.url!, {
        tokens,
        ...(provider.discovery ? { discovery: provider.discovery } : {}),
        ...(provider.registered ? { client: provider.registered } : {}),
      }),
    );
    await this.handles.get(server.name)?.reload();
    return { ok: true, server: server.name };
  }

  /** A flow as its waiter sees it; a pending one past its time reads as expired. */
  async flow(id: string): Promise<SignInFlowView | undefined> {
    const flow = await this.options.store.getFlow(id);
    if (!flow) return undefined;
    const over = Date.parse(flow.expires_at) <= Date.now();
    // A pending one past its time expired; one left exchanging (its instance stopped) failed.
    const expired = over && flow.status === 'pending';
    const lost = over && flow.status === 'exchanging';
    return {
      flow_id: flow.id,
      server: flow.server,
      status: expired ? 'expired' : lost ? 'failed' : flow.status,
      error: expired
        ? 'no callback arrived before the sign-in expired'
        : lost
          ? 'the code exchange did not finish (the instance that took the callback stopped?)'
          : flow.error,
      created_at: flow.created_at,
      expires_at: flow.expires_at,
      finished_at: flow.finished_at,
    };
  }

  /** Where `server` stands, without any secret. */
  async standing(server: ServerConfig): Promise<OAuthStanding> {
    const row = await this.vault.row(server.name);
    const tokens = server.url ? await this.vault.tokens(server.name, server.url) : undefined;
    const signedIn = tokens !== undefined && 'tokens' in tokens;
    return {
      server: server.name,
      signed_in: signedIn,
      expires_at: signedIn ? (row?.expires_at ?? null) : null,
      scopes: signedIn && row?.scope ? row.scope.split(' ').filter(Boolean) : [],
      client: server.oauth?.clientId
        ? 'configured'
        : !row?.client_sealed
          ? null
          : isMetadataDocumentClient(await this.vault.client(server.name).catch(() => undefined))
            ? 'metadata_document'
            : 'registered',
      reason: signedIn ? null : (row?.reason ?? null),
    };
  }

  /** Forgets the server's tokens (the client registration stays); false when it had none. */
  async logout(name: string): Promise<boolean> {
    const server = this.oauthServer(name);
    const had = await this.options.store.withRefreshLock(server.name, () =>
      this.vault.clearTokens(server.name, 'signed out (`codemux auth logout`)'),
    );
    await this.handles.get(server.name)?.reload();
    return had;
  }

  close(): void {
    this.unsubscribe();
    for (const handle of this.handles.values()) handle.close();
  }
}
