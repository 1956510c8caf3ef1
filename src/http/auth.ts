/**
 * @module Who is calling: the admin API key or an agent token, read from `X-API-Key`,
 * `?apikey=` or (for /mcp) `Authorization: Bearer`.
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

/** The secret a request carries, if any; bearer tokens only where `bearer` is allowed. */
function presented(c: Context<GatewayEnv>, bearer: boolean): string | undefined {
  const header = c.req.header('x-api-key');
  if (header) return header;
  if (bearer) {
    const authorization = c.req.header('authorization');
    const match = authorization ? /^Bearer\s+(.+)$/i.exec(authorization) : null;
    if (match) return match[1]!.trim();
  }
  return c.req.query('apikey') || undefined;
}

/** Resolves the request's credential to a caller. */
export function authenticate(
  c: Context<GatewayEnv>,
  deps: AuthDeps,
  options: { bearer: boolean },
): Credential {
  const secret = presented(c, options.bearer);
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

export function unauthorizedMessage(reason: 'missing' | 'invalid', bearer: boolean): string {
  const how = bearer ? 'X-API-Key, Authorization: Bearer or ?apikey=' : 'X-API-Key or ?apikey=';
  return reason === 'missing'
    ? `authentication required: send the API key or an agent token as ${how}`
    : 'the API key or agent token is not valid';
}
