/** @module One configured server inside the registry: its connection, limits and state. */
import type { ServerConfig } from '../config/index.ts';
import type { ConcurrencyLimiter } from './limiter.ts';
import type { UpstreamAuth } from './oauth/types.ts';
import type { ServerState, UpstreamConnection } from './types.ts';

export interface Entry {
  config: ServerConfig;
  connection: UpstreamConnection;
  limiter: ConcurrencyLimiter;
  state: ServerState;
  lastError?: string;
  /** Why the last established connection dropped, until the next successful start. */
  dropReason?: string;
  failure?: { at: number; message: string };
  reconnect?: NodeJS.Timeout;
  attempts: number;
  removed: boolean;
  /** Its OAuth side (http/sse with an OAuth store). */
  auth?: UpstreamAuth;
  /** Why it waits for an OAuth sign-in (state needs_auth): no connect is tried until one. */
  needsAuth?: string;
}
