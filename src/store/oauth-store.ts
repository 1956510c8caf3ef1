/** @module The OAuth store contract: upstream OAuth credentials (kept sealed) and sign-in flows. */

/**
 * One upstream server's OAuth credentials (`codemux auth login`). The secret parts arrive
 * sealed (AES-256-GCM, util/secret-box.ts): the store keeps opaque text and never sees a token.
 */
export interface OAuthCredentials {
  server: string;
  /** The upstream URL the credentials were obtained for (another URL needs a new sign-in). */
  server_url: string;
  /** Sealed JSON of the client registered by Dynamic Client Registration; null when none. */
  client_sealed: string | null;
  /** Sealed JSON of the token set (access, refresh, ...); null when signed out. */
  tokens_sealed: string | null;
  /** The discovery state (protected resource and authorization server metadata): public, JSON. */
  discovery: unknown;
  /** When the access token expires (ISO 8601 UTC); null when unknown or signed out. */
  expires_at: string | null;
  /** The granted scopes, space-separated; null when unknown or signed out. */
  scope: string | null;
  /** Why the server needs sign-in again (a refused refresh, ...); null when nothing failed. */
  reason: string | null;
  /** ISO 8601 UTC of the last write. */
  updated_at: string;
}

/** The fields `OAuthStore.put` writes (every other one is kept). */
export type OAuthCredentialsWrite = Partial<Omit<OAuthCredentials, 'server' | 'updated_at'>>;

/** pending: waits for its callback; exchanging: its callback arrived (state used up). */
export type OAuthFlowStatus = 'pending' | 'exchanging' | 'completed' | 'failed' | 'expired';

/** One sign-in started by `codemux auth login` or the dashboard, until its callback. */
export interface OAuthFlow {
  /** Random, names the flow to whoever waits for it (never the `state` itself). */
  id: string;
  server: string;
  /** Lowercase hex SHA-256 of the `state` parameter; the state itself is never stored. */
  state_sha256: string;
  /** Sealed JSON of what its callback needs: the PKCE verifier, and what the sign-in found. */
  verifier_sealed: string;
  status: OAuthFlowStatus;
  /** For a failed flow: what failed (the authorization server's error and description). */
  error: string | null;
  created_at: string;
  expires_at: string;
  finished_at: string | null;
}

/** Upstream OAuth credentials and sign-in flows; asynchronous so PostgreSQL fits behind it. */
export interface OAuthStore {
  get(server: string): Promise<OAuthCredentials | undefined>;
  /** Every server's credentials, by server name. */
  list(): Promise<OAuthCredentials[]>;
  /** Writes `fields` (others kept); a missing row is created (`server_url` then required). */
  put(server: string, fields: OAuthCredentialsWrite): Promise<void>;
  /** Forgets the server's credentials and flows; true when there was a row. */
  delete(server: string): Promise<boolean>;
  createFlow(flow: OAuthFlow): Promise<void>;
  getFlow(id: string): Promise<OAuthFlow | undefined>;
  /**
   * Takes the flow whose state hashes to `stateSha256` if it is pending and not expired at
   * `now`, moving it to 'exchanging' atomically: a state is used once, on any instance.
   */
  claimFlow(stateSha256: string, now: string): Promise<OAuthFlow | undefined>;
  /** Ends a flow as completed, failed (with `error`) or expired. */
  finishFlow(
    id: string,
    status: 'completed' | 'failed' | 'expired',
    error: string | null,
    finishedAt: string,
  ): Promise<void>;
  /** Deletes flows created before `before` (ISO 8601); returns how many. */
  trimFlows(before: string): Promise<number>;
  /**
   * Runs `fn` while holding the server's refresh lock: on PostgreSQL an advisory lock, so two
   * instances never refresh the same token at once; in SQLite, one at a time in this process.
   */
  withRefreshLock<T>(server: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Calls `listener` with the server whose credentials or flows another instance wrote, soon
   * after (within a second); returns the unsubscribe. One database per gateway: never called.
   */
  onChange(listener: (server: string) => void): () => void;
}
