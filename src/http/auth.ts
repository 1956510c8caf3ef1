/**
 * @module Who is calling: the admin API key or an agent token, read from `X-API-Key`,
 * `Authorization: Bearer` or `?apikey=`, alike on every route.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { Caller } from '../execution/index.ts';
import type { TokenStore } from '../store/index.ts';
import type { GatewayEnv } from './types.ts';

export type Credential =
  | { ok: true; caller: Caller; secret: string }
  | { ok: false; reason: 'missing' | 'invalid' };

export interface AuthDeps {
  adminKey: string;
  tokens: TokenStore;
}

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
