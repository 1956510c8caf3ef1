/** @module The upstream OAuth contract between connections, the registry and the surfaces. */

/** What `fetch` the MCP SDK transports take (its FetchLike). */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * One http/sse server's OAuth side, given to its connection: the transport's fetch adds the
 * bearer token, refreshes once after a 401 and notices a `WWW-Authenticate: Bearer` challenge.
 */
export interface UpstreamAuth {
  readonly fetch: FetchLike;
  /** Before connecting: why trying is pointless (configured `oauth` and no tokens), or undefined. */
  blocked(): Promise<string | undefined>;
  /** Set once a 401 could not be answered (no tokens, a refused refresh); cleared by a sign-in. */
  readonly needsSignIn: string | undefined;
  /**
   * True while the server refuses what a step-up sign-in granted (403 insufficient_scope again):
   * codemux stopped asking, so it shows `failed` (nothing retries it) rather than `needs_auth`.
   */
  readonly signInRefused?: boolean;
  /** Called (once per cause) when the server needs a sign-in while connected; set by the registry. */
  onNeedsSignIn?: (reason: string) => void;
  /**
   * Called with each access token just before it is sent, and the refresh token that goes with
   * it (the registry masks both from the server's errors and results); set by the registry.
   */
  onBearer?: (token: string, refreshToken?: string) => void;
  /** Called when tokens arrived while it needed sign-in (here or on another instance); set by the registry. */
  onSignedIn?: () => void;
  /** The server left the config: no more refreshes. */
  close(): void;
}

/** A sign-in waiting for its callback, as `codemux auth login` and the dashboard get it. */
export interface SignInStart {
  flow_id: string;
  server: string;
  authorization_url: string;
  expires_at: string;
}

/** A flow as whoever waits for it sees it (no state, no verifier). */
export interface SignInFlowView {
  flow_id: string;
  server: string;
  status: 'pending' | 'exchanging' | 'completed' | 'failed' | 'expired';
  error: string | null;
  created_at: string;
  expires_at: string;
  finished_at: string | null;
}

/** One server's OAuth standing, without any secret. */
export interface OAuthStanding {
  server: string;
  signed_in: boolean;
  /** When the access token expires (ISO 8601), null when unknown or signed out. */
  expires_at: string | null;
  scopes: string[];
  /**
   * `configured` (oauth.client_id), `registered` (DCR, kept in the store), `metadata_document`
   * (the `oauth_client_metadata_url`, SEP-991) or null.
   */
  client: 'configured' | 'registered' | 'metadata_document' | null;
  /** Why it needs sign-in (a refused refresh, signed out, ...); null when nothing failed. */
  reason: string | null;
}

/** What the callback did, for the page the browser shows. */
export type CallbackOutcome =
  | { ok: true; server: string }
  | { ok: false; status: 400 | 502; server?: string; message: string };
