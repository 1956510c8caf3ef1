/**
 * @module One http/sse server's OAuth side while it is configured: the fetch its transport
 * uses (bearer token in, one refresh and one retry after a 401, a `Bearer` challenge noticed),
 * and the refresh ahead of expiry. A refresh the authorization server refuses forgets the
 * tokens and puts the server in `needs_auth` with the reason; a passing failure is retried,
 * and once the access token has expired meanwhile the server is `needs_auth` with that reason
 * until a retry succeeds. Refreshes are paced (RefreshPacer): a token that expires sooner than
 * the next refresh may be sent is used as it is meanwhile, and one issued already expired is
 * used once, then forgotten, and the server needs a sign-in.
 */
import { OAUTH_REFRESH_LEAD_MS } from '../../config/defaults.ts';
import type { ServerConfig } from '../../config/index.ts';
import type { Logger } from '../../util/logger.ts';
import { type RefreshPacer, refreshIntervalOf } from './refresh-pacer.ts';
import { type RefreshOutcome, refreshTokens } from './refresher.ts';
import { challengeScopes, isInsufficientScope, scopesOf, scopeUnion } from './scope-challenge.ts';
import type { FetchLike, UpstreamAuth } from './types.ts';
import type { OAuthVault, StoredTokens } from './vault.ts';

/** A token this close to its expiry is refreshed before it is sent. */
const SEND_MARGIN_MS = 5_000;
/** setTimeout's largest delay; a later expiry is looked at again after it. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * Step-up sign-ins codemux asks for one scope set: a server that still answers 403
 * insufficient_scope for it after that many is not asked about again (no sign-in loop).
 */
export const MAX_STEP_UPS_PER_SCOPE = 1;

/** How long before expiry a token is refreshed: a minute, or a fifth of a short life. */
export function refreshLead(lifetimeMs: number | undefined): number {
  if (lifetimeMs === undefined) return OAUTH_REFRESH_LEAD_MS;
  return Math.min(OAUTH_REFRESH_LEAD_MS, Math.max(1_000, lifetimeMs / 5));
}

/** When to refresh: `lead` before expiry, within what setTimeout can wait (else it fires at once). */
export function refreshDelay(expiresAt: number, lead: number, now: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(0, expiresAt - lead - now));
}

/** Issued already expired (`expires_in` 0 or less): refreshing it would only bring another. */
export function issuedExpired(tokens: StoredTokens): boolean {
  return typeof tokens.expires_in === 'number' && tokens.expires_in <= 0;
}

function withBearer(
  init: RequestInit | undefined,
  tokens: StoredTokens | undefined,
  onBearer?: UpstreamAuth['onBearer'],
): RequestInit {
  if (tokens === undefined) return init ?? {};
  onBearer?.(tokens.access_token, tokens.refresh_token);
  const headers = new Headers(init?.headers);
  headers.set('Authorization', `Bearer ${tokens.access_token}`);
  return { ...init, headers };
}

/**
 * The `resource_metadata` URL of a `WWW-Authenticate: Bearer` challenge, when it names one on
 * the server's own origin (another host is never fetched on a server's say-so).
 */
export function resourceMetadataOf(challenge: string, serverUrl?: string): URL | undefined {
  const match = /resource_metadata="([^"]+)"/i.exec(challenge);
  if (!match) return undefined;
  try {
    const url = new URL(match[1]!);
    if (serverUrl !== undefined && url.origin !== new URL(serverUrl).origin) return undefined;
    return url;
  } catch {
    return undefined;
  }
}

export class ServerAuth implements UpstreamAuth {
  needsSignIn: string | undefined;
  signInRefused = false;
  onNeedsSignIn?: (reason: string) => void;
  onSignedIn?: () => void;
  onBearer?: UpstreamAuth['onBearer'];
  /** From the last `Bearer` challenge: where the server's protected resource metadata is. */
  resourceMetadataUrl: URL | undefined;
  /** The `scope` of the last 401 challenge (the default of a sign-in without `oauth.scopes`). */
  private challenged: string[] = [];
  /** After a 403 insufficient_scope: what the next sign-in asks for (granted ∪ asked). */
  private stepUp: string[] | undefined;
  /** Step-up sign-ins asked for, by scope set (MAX_STEP_UPS_PER_SCOPE). */
  private readonly stepUps = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly fetch: FetchLike = (url, init) => this.send(url, init);

  constructor(
    readonly server: ServerConfig,
    private readonly vault: OAuthVault,
    private readonly logger: Logger,
    private readonly pacer: RefreshPacer,
  ) {}

  private get name(): string {
    return this.server.name;
  }

  private get url(): string {
    return this.server.url!;
  }

  /** Configured for OAuth, or signed in before: never tried (or kept) without tokens. */
  private async isOAuthServer(): Promise<boolean> {
    return this.server.oauth !== undefined || (await this.vault.row(this.name)) !== undefined;
  }

  async blocked(): Promise<string | undefined> {
    const current = await this.vault.tokens(this.name, this.url);
    if ('tokens' in current) {
      this.schedule(current.expiresAt, current.tokens.expires_in);
      return this.needsSignIn;
    }
    if (await this.isOAuthServer()) {
      this.needsSignIn = current.reason;
      return current.reason;
    }
    return undefined;
  }

  private async send(url: string | URL, init?: RequestInit): Promise<Response> {
    const current = await this.vault.tokens(this.name, this.url);
    let tokens = 'tokens' in current ? current.tokens : undefined;
    if (tokens && issuedExpired(tokens)) {
      const response = await fetch(url, withBearer(init, tokens, this.onBearer));
      await this.spent(tokens);
      return response;
    }
    if (tokens && 'tokens' in current && current.expiresAt !== undefined) {
      // Too soon to refresh again (paced): the current token goes as it is.
      if (current.expiresAt - Date.now() < SEND_MARGIN_MS) {
        tokens = (await this.refresh(undefined, SEND_MARGIN_MS)) ?? tokens;
      }
    }
    const token = tokens?.access_token;
    const response = await fetch(url, withBearer(init, tokens, this.onBearer));
    if (tokens && issuedExpired(tokens)) await this.spent(tokens);
    if (response.status === 403 && tokens) {
      const challenge = response.headers.get('www-authenticate') ?? '';
      if (isInsufficientScope(challenge)) await this.insufficientScope(challenge, tokens);
      return response;
    }
    if (response.status !== 401) return response;
    const challenge = response.headers.get('www-authenticate') ?? '';
    if (!/^\s*bearer\b/i.test(challenge)) return response;
    this.resourceMetadataUrl = resourceMetadataOf(challenge, this.url) ?? this.resourceMetadataUrl;
    const scopes = challengeScopes(challenge);
    if (scopes.length) this.challenged = scopes;
    if (token === undefined) {
      // Already waiting for a sign-in: its first reason stays the one shown.
      if (this.needsSignIn === undefined) {
        this.needs(
          'the server asks for an OAuth sign-in (it answered 401 with WWW-Authenticate: Bearer)',
        );
      }
      return response;
    }
    if (issuedExpired(tokens!)) return response;
    // Once after a 401: refresh (or take the token another request refreshed), then retry.
    const fresh = await this.refresh(token, 0);
    if (!fresh) return response;
    const refreshed = fresh.access_token;
    await response.body?.cancel().catch(() => {});
    const again = await fetch(url, withBearer(init, fresh, this.onBearer));
    if (issuedExpired(fresh)) {
      await this.spent(fresh);
      return again;
    }
    if (again.status === 401) {
      const reason = 'the server refused a freshly refreshed token (401); sign in again';
      await this.vault.store
        .withRefreshLock(this.name, () => this.vault.clearTokens(this.name, reason, refreshed))
        .catch(() => {});
      this.needs(reason);
    }
    return again;
  }

  /**
   * The scope a sign-in asks for now: after a step-up, what was granted and configured plus what
   * the server asked for; else `oauth.scopes`, else the last challenge's `scope` (undefined: the
   * SDK takes the protected resource metadata's `scopes_supported`, or asks for none).
   */
  signInScope(): string | undefined {
    const configured = this.server.oauth?.scopes ?? [];
    if (this.stepUp) return scopeUnion(configured, this.stepUp);
    return scopeUnion(configured.length ? configured : this.challenged);
  }

  /**
   * A 403 insufficient_scope (RFC 6750 3.1): the token lacks scope the request needs. The
   * server needs a sign-in for the union of what was granted and what it asks (SEP-2350), once
   * per scope set; asked again after that, it is left in needs_auth saying so, not asked again.
   */
  private async insufficientScope(challenge: string, tokens: StoredTokens): Promise<void> {
    this.resourceMetadataUrl = resourceMetadataOf(challenge, this.url) ?? this.resourceMetadataUrl;
    const asked = challengeScopes(challenge);
    const key = [...asked].sort().join(' ');
    const count = (this.stepUps.get(key) ?? 0) + 1;
    this.stepUps.set(key, count);
    const named = asked.length ? `scope "${asked.join(' ')}"` : 'more scope';
    const again = count > MAX_STEP_UPS_PER_SCOPE;
    this.signInRefused = again;
    if (!again) this.stepUp = scopesOf(scopeUnion(scopesOf(tokens.scope), asked));
    const reason = again
      ? `the server still answers 403 insufficient_scope (it asks for ${named}) after a sign-in that asked for it; codemux does not ask again: have the grant (or the server) fixed, then sign in with \`codemux auth login ${this.name}\``
      : `the server needs ${named} for this request (403 insufficient_scope): sign in again to grant it (step-up)`;
    // The tokens go (every instance then sees the server waiting, and why); the next sign-in
    // asks for what they were granted and more.
    await this.vault.store
      .withRefreshLock(this.name, () =>
        this.vault.clearTokens(this.name, reason, tokens.access_token),
      )
      .catch(() => {});
    this.needs(reason);
  }

  /**
   * A token issued already expired was just used (its once): it is forgotten, and the server
   * needs a sign-in, saying why, instead of refreshing it again and again.
   */
  private async spent(tokens: StoredTokens): Promise<void> {
    const reason = `the authorization server issued an access token that had already expired (expires_in: ${tokens.expires_in}); it was used once and is forgotten: sign in again once the authorization server gives its tokens a lifetime`;
    await this.vault.store
      .withRefreshLock(this.name, () =>
        this.vault.clearTokens(this.name, reason, tokens.access_token),
      )
      .catch(() => {});
    this.needs(reason);
  }

  /** New (or newer) tokens, or undefined when there are none now. */
  private async refresh(
    stale: string | undefined,
    leadMs: number,
  ): Promise<StoredTokens | undefined> {
    const outcome = await refreshTokens(this.server, this.vault, {
      stale,
      leadMs,
      pacer: this.pacer,
    }).catch(
      (error: Error): RefreshOutcome => ({ ok: false, permanent: false, reason: error.message }),
    );
    if (outcome.ok) {
      this.schedule(outcome.expiresAt, outcome.tokens.expires_in);
      // One issued already expired connects for its one use (spent then ends it).
      if (this.needsSignIn !== undefined) {
        this.needsSignIn = undefined;
        this.onSignedIn?.();
      }
      return outcome.tokens;
    }
    if (outcome.permanent) {
      this.needs(outcome.reason);
      return undefined;
    }
    const retryAt = outcome.retryAt ?? Date.now() + refreshIntervalOf(this.server);
    if (outcome.paced) {
      // A 401 that cannot be answered until then: the server waits, saying why and until when.
      if (stale !== undefined) {
        this.needs(`the server refused the access token (401) and ${outcome.reason}`, true);
      }
      this.retryAt(retryAt);
      return undefined;
    }
    this.logger.warn({ reason: outcome.reason }, 'upstream OAuth token refresh failed');
    const current = await this.vault.tokens(this.name, this.url).catch(() => undefined);
    const expired =
      current !== undefined &&
      'tokens' in current &&
      current.expiresAt !== undefined &&
      current.expiresAt <= Date.now();
    // Never a silent failure: an expired token that cannot be refreshed now is needs_auth,
    // with the reason, while the retries go on.
    if (expired) this.needs(`the access token expired and ${outcome.reason}; retrying`, true);
    this.retryAt(retryAt);
    return undefined;
  }

  private needs(reason: string, retrying = false): void {
    const first = this.needsSignIn === undefined;
    this.needsSignIn = reason;
    if (!retrying) clearTimeout(this.timer);
    this.logger.warn({ reason }, 'upstream needs an OAuth sign-in');
    if (first) this.onNeedsSignIn?.(reason);
  }

  /** The next try at `at` (epoch ms): when the pacer lets a refresh go. */
  private retryAt(at: number): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now()));
    this.timer = setTimeout(() => void this.refreshAhead(OAUTH_REFRESH_LEAD_MS), delay);
    this.timer.unref();
  }

  /**
   * Refreshes ahead of expiry (each instance tries; the lock lets the first one do it), never
   * sooner than the pacer allows; a token issued already expired is never refreshed.
   */
  private schedule(expiresAt: number | undefined, expiresIn: number | undefined): void {
    clearTimeout(this.timer);
    if (this.closed || expiresAt === undefined) return;
    if (expiresIn !== undefined && expiresIn <= 0) return;
    const lead = refreshLead(expiresIn === undefined ? undefined : expiresIn * 1000);
    const now = Date.now();
    const paced = this.pacer.nextAt(refreshIntervalOf(this.server)) - now;
    const delay = Math.min(MAX_TIMER_MS, Math.max(refreshDelay(expiresAt, lead, now), paced));
    this.timer = setTimeout(() => void this.refreshAhead(lead), delay);
    this.timer.unref();
  }

  private async refreshAhead(lead: number): Promise<void> {
    if (this.closed) return;
    // Not due yet (a timer capped for a long-lived token): the refresh leaves it, and reschedules.
    await this.refresh(undefined, lead);
  }

  /** The store changed (a sign-in, a logout, a refresh elsewhere): takes it in. */
  async reload(): Promise<void> {
    if (this.closed) return;
    const current = await this.vault.tokens(this.name, this.url);
    if ('tokens' in current) {
      this.schedule(current.expiresAt, current.tokens.expires_in);
      // One issued already expired is usable once (the connect uses it, then it ends).
      const usable = (current.expiresAt ?? Infinity) > Date.now() || issuedExpired(current.tokens);
      if (this.needsSignIn !== undefined && usable) {
        // The step-up sign-in happened: the next 403 for the same scope is not asked about again.
        this.stepUp = undefined;
        this.signInRefused = false;
        this.needsSignIn = undefined;
        this.onSignedIn?.();
      }
    } else if (this.needsSignIn === undefined && (await this.isOAuthServer())) {
      this.needs(current.reason);
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
