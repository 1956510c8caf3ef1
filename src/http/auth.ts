/**
 * @module Who is calling: the admin API key or an agent token, read from `X-API-Key`,
 * `Authorization: Bearer` or `?apikey=`, alike on every route.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Caller } from '../execution/index.ts';
import type { TokenStore } from '../store/index.ts';
import { type DashboardSessions, SESSION_COOKIE } from '../ui/sessions.ts';
import type { GatewayEnv } from './types.ts';

export type Credential =
  /** viaSession: the dashboard's own session cookie, not a key or token. */
  | { ok: true; caller: Caller; secret: string; viaSession?: true }
  | { ok: false; reason: 'missing' | 'invalid' };

export interface AuthDeps {
  adminKey: string;
  tokens: TokenStore;
  /** Dashboard sessions, accepted as a credential by the REST routes only. */
  sessions?: DashboardSessions;
}

/** The header a dashboard page sends on every write (a cross-site form or fetch cannot, without a preflight we refuse). */
export const UI_HEADER = 'x-codemux-ui';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The secret a request carries, if any. */
function presented(c: Context<GatewayEnv>): string | undefined {
  const header = c.req.header('x-api-key');
  if (header) return header;
  const authorization = c.req.header('authorization');
  const match = authorization ? /^Bearer\s+(.+)$/i.exec(authorization) : null;
  if (match) return match[1]!.trim();
  return c.req.query('apikey') || undefined;
}

/** Resolves the request's credential to a caller. */
export function authenticate(c: Context<GatewayEnv>, deps: AuthDeps): Credential {
  const secret = presented(c);
  if (!secret) return { ok: false, reason: 'missing' };
  if (sameSecret(secret, deps.adminKey)) return { ok: true, caller: { kind: 'admin' }, secret };
  const token = deps.tokens.verify(secret);
  if (token) {
    return {
      ok: true,
      caller: {
        kind: 'agent',
        name: token.name,
        servers: token.servers,
        codeTools: token.code_tools,
      },
      secret,
    };
  }
  return { ok: false, reason: 'invalid' };
}

export function unauthorizedMessage(reason: 'missing' | 'invalid'): string {
  return reason === 'missing'
    ? 'authentication required: send the API key or an agent token as X-API-Key, Authorization: Bearer or ?apikey='
    : 'the API key or agent token is not valid';
}

export type RestCredential = Credential | { ok: false; reason: 'forbidden'; detail: string };

/**
 * The REST routes' credential: a key or token, else the dashboard session cookie. A write
 * made with the cookie must carry `X-Codemux-UI: 1` and, when the browser names one, this
 * gateway's own Origin (CSRF defence beside SameSite=Strict).
 */
export function authenticateRest(c: Context<GatewayEnv>, deps: AuthDeps): RestCredential {
  const credential = authenticate(c, deps);
  if (credential.ok || credential.reason !== 'missing' || !deps.sessions) return credential;
  const caller = deps.sessions.caller(getCookie(c, SESSION_COOKIE));
  if (!caller) return credential;
  if (!SAFE_METHODS.has(c.req.method)) {
    if (c.req.header(UI_HEADER) !== '1')
      return {
        ok: false,
        reason: 'forbidden',
        detail: `a write with the dashboard session cookie must send the header ${UI_HEADER}: 1 (send X-API-Key from scripts)`,
      };
    const origin = c.req.header('origin');
    if (origin && origin !== new URL(c.req.url).origin)
      return {
        ok: false,
        reason: 'forbidden',
        detail: `cross-origin write refused: Origin ${origin} is not this gateway`,
      };
  }
  return { ok: true, caller, secret: '', viaSession: true };
}
