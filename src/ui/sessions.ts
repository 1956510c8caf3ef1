/** @module Dashboard sessions: opaque random ids kept in memory, mapped to the caller that signed in. */
import { randomBytes } from 'node:crypto';
import type { Caller } from '../execution/index.ts';

/** The cookie that carries the session id (never the key itself). */
export const SESSION_COOKIE = 'codemux_session';
/** A session ends this long after sign-in. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Sessions kept at most; signing in beyond it ends the oldest. */
export const MAX_SESSIONS = 1000;
const SESSION_ID_BYTES = 32;

interface Session {
  caller: Caller;
  expiresAtMs: number;
}

export class DashboardSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Starts a session for `caller`; returns its id, for the cookie. */
  create(caller: Caller): string {
    this.prune();
    while (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value as string;
      this.sessions.delete(oldest);
    }
    const id = randomBytes(SESSION_ID_BYTES).toString('base64url');
    this.sessions.set(id, { caller, expiresAtMs: this.now() + SESSION_TTL_MS });
    return id;
  }

  /** The caller of a live session, or undefined. */
  caller(id: string | undefined): Caller | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAtMs <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session.caller;
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) {
      if (session.expiresAtMs <= now) this.sessions.delete(id);
    }
  }
}
