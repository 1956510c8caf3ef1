/** @module REST for agent tokens under /api/v1/tokens (admin key only): list, create (the secret once), revoke. */
import { Hono } from 'hono';
import { CodemuxError } from '../errors/index.ts';
import type { Runtime } from '../execution/index.ts';
import type { TokenStore } from '../store/index.ts';
import { didYouMean } from '../util/did-you-mean.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

/** Store failures by code: the status they answer. */
const STORE_ERRORS: Record<string, 400 | 409> = {
  INVALID_TOKEN_NAME: 400,
  INVALID_TOKEN_SERVERS: 400,
  TOKEN_EXISTS: 409,
};

/** A list field: absent is [], else an array of non-empty strings. */
function names(
  value: unknown,
  field: string,
): { ok: true; value: string[] } | { ok: false; message: string } {
  if (value === undefined || value === null) return { ok: true, value: [] };
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== ''))
    return { ok: false, message: `${field} must be an array of names, e.g. ["github"]` };
  return { ok: true, value: [...new Set(value as string[])] };
}

export function tokenRoutes(runtime: Runtime, tokens: TokenStore): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.use('*', async (c, next) => {
    if (c.get('caller')?.kind !== 'admin')
      return restError(
        c,
        403,
        'ACCESS_DENIED',
        'agent tokens are managed with the admin API key only',
      );
    await next();
  });

  api.get('/', async (c) =>
    c.json({ ok: true, value: { tokens: await tokens.list() }, request_id: c.get('requestId') }),
  );

  api.post('/', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      return restError(
        c,
        400,
        'INVALID_TOKEN',
        `the request body is not valid JSON: ${(error as Error).message}`,
      );
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return restError(
        c,
        400,
        'INVALID_TOKEN',
        'the body must be {"name", "servers", "code_tools"}',
      );
    const { name, servers, code_tools } = body as Record<string, unknown>;
    if (typeof name !== 'string')
      return restError(
        c,
        400,
        'INVALID_TOKEN_NAME',
        'name is required: 1-64 characters of A-Z, a-z, 0-9, _, . and -',
      );
    const serverList = names(servers, 'servers');
    if (!serverList.ok) return restError(c, 400, 'INVALID_TOKEN_SERVERS', serverList.message);
    const toolList = names(code_tools, 'code_tools');
    if (!toolList.ok) return restError(c, 400, 'INVALID_TOKEN_SERVERS', toolList.message);
    const known = new Set(runtime.config().servers.map((s) => s.name));
    const unknown = serverList.value.find((s) => !known.has(s));
    if (unknown !== undefined)
      return restError(
        c,
        400,
        'UNKNOWN_SERVER',
        `servers: unknown server '${unknown}'${didYouMean(unknown, known)}; the config has: ${[...known].join(', ') || 'none'}`,
      );
    try {
      const created = await tokens.create(name, serverList.value, toolList.value);
      return c.json(
        {
          ok: true,
          value: { token: created.token, ...created.record },
          request_id: c.get('requestId'),
        },
        201,
      );
    } catch (error) {
      if (error instanceof CodemuxError && error.code in STORE_ERRORS)
        return restError(c, STORE_ERRORS[error.code]!, error.code, error.message);
      throw error;
    }
  });

  api.delete('/:name', async (c) => {
    const name = c.req.param('name');
    if (!(await tokens.revoke(name)))
      return restError(c, 404, 'TOKEN_NOT_FOUND', `no token named "${name}"`);
    return c.json({ ok: true, value: { revoked: name }, request_id: c.get('requestId') });
  });

  return api;
}
