/**
 * @module When one server's next token refresh may go to its authorization server: never sooner
 * than the minimum interval after the last one, and after failed ones a wait that doubles (up to
 * a cap), so a token issued with `expires_in: 0` or an authorization server that keeps failing
 * is not asked again and again.
 */
import {
  OAUTH_REFRESH_BACKOFF_MAX_MS,
  OAUTH_REFRESH_MIN_INTERVAL_MS,
} from '../../config/defaults.ts';
import type { ServerConfig } from '../../config/index.ts';

/** The doubling stops growing here (2^20 intervals is past any cap). */
const MAX_DOUBLINGS = 20;

/** The server's minimum interval between refreshes (its config, else the default). */
export function refreshIntervalOf(server: ServerConfig): number {
  return server.oauth?.refreshMinIntervalMs ?? OAUTH_REFRESH_MIN_INTERVAL_MS;
}

/** The wait after the last refresh: the interval, doubled per failure since the last success. */
export function refreshWait(intervalMs: number, failures: number): number {
  const backoff = intervalMs * 2 ** Math.min(failures, MAX_DOUBLINGS);
  return Math.max(intervalMs, Math.min(OAUTH_REFRESH_BACKOFF_MAX_MS, backoff));
}

/** One server's refresh pace on this instance; kept while the server is configured. */
export class RefreshPacer {
  private lastAt: number | undefined;
  private failures = 0;

  /** Epoch ms from which the next refresh may be sent (0: at once). */
  nextAt(intervalMs: number): number {
    if (this.lastAt === undefined) return 0;
    return this.lastAt + refreshWait(intervalMs, this.failures);
  }

  /** A refresh request is going to the authorization server now. */
  sent(now: number): void {
    this.lastAt = now;
  }

  /** How it went: a failure lengthens the next wait, a success resets it. */
  settled(ok: boolean): void {
    this.failures = ok ? 0 : this.failures + 1;
  }
}
