/**
 * @module Upstream OAuth credentials as the code uses them: sealed on the way into the store
 * (AES-256-GCM, bound to the row by its associated data), opened and cached on the way out.
 * The cache holds what this process wrote or read; another instance's write arrives as a
 * change notice (`invalidate`).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthCredentials, OAuthFlow, OAuthStore } from '../../store/index.ts';
import { SealError, type SecretBox } from '../../util/secret-box.ts';

/** Tokens as the SDK hands them over, stamped with the authorization server they came from. */
export type StoredTokens = OAuthTokens & { issuer?: string };

/**
 * What a sign-in's callback needs, sealed in its flow: the PKCE verifier, and what the sign-in
 * found and registered. None of it reaches the server's row before the callback succeeds, so
 * an abandoned sign-in changes nothing a working one relies on.
 */
export interface FlowSecret {
  verifier: string;
  /** The server's url and the redirect URI when the sign-in started (both must still hold). */
  server_url: string;
  redirect_uri: string;
  /** The `scope` the authorization request asked for (absent: none was sent). */
  scope?: string;
  discovery?: OAuthDiscoveryState;
  /** A client registered (DCR) by this sign-in. */
  client?: OAuthClientInformationMixed;
}

/** A completed sign-in, written in one go. */
export interface SignedIn {
  tokens: StoredTokens;
  discovery?: OAuthDiscoveryState;
  client?: OAuthClientInformationMixed;
}

export interface UsableTokens {
  tokens: StoredTokens;
  /** Epoch ms; undefined when the server gave no lifetime. */
  expiresAt: number | undefined;
}

interface Opened {
  row: OAuthCredentials | undefined;
  tokens?: StoredTokens;
  client?: OAuthClientInformationMixed;
  /** Why the sealed values do not open (another key, altered). */
  unreadable?: string;
}

const aad = (what: 'tokens' | 'client' | 'verifier', key: string) => `oauth-${what}:${key}`;
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class OAuthVault {
  private readonly opened = new Map<string, Promise<Opened>>();

  constructor(
    readonly store: OAuthStore,
    /** Read on first use: a gateway without OAuth servers never makes a key. */
    private readonly box: () => SecretBox,
  ) {}

  /** Forgets what is cached for `server` (its row changed elsewhere). */
  invalidate(server: string): void {
    this.opened.delete(server);
  }

  private open(server: string): Promise<Opened> {
    let opened = this.opened.get(server);
    if (!opened) {
      opened = this.read(server);
      this.opened.set(server, opened);
      opened.catch(() => this.opened.delete(server));
    }
    return opened;
  }

  private async read(server: string): Promise<Opened> {
    const row = await this.store.get(server);
    if (!row) return { row };
    try {
      return {
        row,
        ...(row.tokens_sealed
          ? { tokens: JSON.parse(this.box().open(row.tokens_sealed, aad('tokens', server))) }
          : {}),
        ...(row.client_sealed
          ? { client: JSON.parse(this.box().open(row.client_sealed, aad('client', server))) }
          : {}),
      };
    } catch (error) {
      if (error instanceof SealError) return { row, unreadable: error.message };
      throw error;
    }
  }

  /** The row as stored (no secret opened). */
  async row(server: string): Promise<OAuthCredentials | undefined> {
    return (await this.open(server)).row;
  }

  /** Usable tokens for `server` at `url`, or why there are none. */
  async tokens(server: string, url: string): Promise<UsableTokens | { reason: string }> {
    const { row, tokens, unreadable } = await this.open(server);
    if (!row?.tokens_sealed) return { reason: row?.reason ?? 'not signed in yet' };
    if (row.server_url !== url) {
      return { reason: `signed in for ${row.server_url}; the server's url is now ${url}` };
    }
    if (unreadable || !tokens) return { reason: `the stored tokens cannot be read: ${unreadable}` };
    const expiresAt = row.expires_at ? Date.parse(row.expires_at) : undefined;
    return { tokens, expiresAt };
  }

  /**
   * Writes new tokens (and what the sign-in found, when it is one); call under the refresh
   * lock. Answers when the access token expires (epoch ms; undefined without a lifetime).
   */
  async saveTokens(server: string, url: string, signedIn: SignedIn): Promise<number | undefined> {
    const { tokens } = signedIn;
    const expiresAt =
      typeof tokens.expires_in === 'number'
        ? new Date(Date.now() + tokens.expires_in * 1000).toISOString()
        : null;
    await this.store.put(server, {
      server_url: url,
      tokens_sealed: this.box().seal(JSON.stringify(tokens), aad('tokens', server)),
      expires_at: expiresAt,
      scope: tokens.scope ?? null,
      reason: null,
      ...(signedIn.discovery ? { discovery: signedIn.discovery } : {}),
      ...(signedIn.client
        ? { client_sealed: this.box().seal(JSON.stringify(signedIn.client), aad('client', server)) }
        : {}),
    });
    this.invalidate(server);
    return expiresAt === null ? undefined : Date.parse(expiresAt);
  }

  /**
   * Forgets the tokens (the client registration stays), noting why; false when there were none.
   * With `only`, only while the stored access token is still that one (a newer sign-in or
   * refresh stays). Call under the refresh lock.
   */
  async clearTokens(server: string, reason: string, only?: string): Promise<boolean> {
    this.invalidate(server);
    const { row, tokens } = await this.open(server);
    if (!row?.tokens_sealed) return false;
    if (only !== undefined && tokens?.access_token !== only) return false;
    await this.store.put(server, { tokens_sealed: null, expires_at: null, scope: null, reason });
    this.invalidate(server);
    return true;
  }

  /** The client registered by DCR for `server`, if one is kept and readable. */
  async client(server: string): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.open(server)).client;
  }

  /** The discovery state kept for `server` at `url` (metadata is public: not sealed). */
  async discovery(server: string, url: string): Promise<OAuthDiscoveryState | undefined> {
    const row = await this.row(server);
    if (!row || row.server_url !== url || !row.discovery) return undefined;
    return row.discovery as OAuthDiscoveryState;
  }

  /** Starts a flow: only the state's hash and the sealed secret are kept. */
  async createFlow(
    server: string,
    state: string,
    secret: FlowSecret,
    ttlMs: number,
  ): Promise<OAuthFlow> {
    const id = randomUUID();
    const now = Date.now();
    const flow: OAuthFlow = {
      id,
      server,
      state_sha256: sha256(state),
      verifier_sealed: this.box().seal(JSON.stringify(secret), aad('verifier', id)),
      status: 'pending',
      error: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttlMs).toISOString(),
      finished_at: null,
    };
    await this.store.createFlow(flow);
    return flow;
  }

  /** Takes the pending flow of `state` once. */
  async claimFlow(state: string): Promise<OAuthFlow | undefined> {
    return this.store.claimFlow(sha256(state), new Date().toISOString());
  }

  /** A claimed flow's secret (throws SealError when it does not open). */
  flowSecret(flow: OAuthFlow): FlowSecret {
    return JSON.parse(this.box().open(flow.verifier_sealed, aad('verifier', flow.id)));
  }
}
