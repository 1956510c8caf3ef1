/** @module REST for code tools under /api/v1/code-tools (admin key only): CRUD, param rows, versions, run. */
import { type Context, Hono } from 'hono';
import type { Outcome } from '../codetools/index.ts';
import type { Runtime } from '../execution/index.ts';
import { restError } from './rest-error.ts';
import { surfaceOf } from './run-answer.ts';
import { statusFor } from './status.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;

const ERRORS = {
  invalid: { status: 400, code: 'INVALID_CODE_TOOL' },
  not_found: { status: 404, code: 'CODE_TOOL_NOT_FOUND' },
  exists: { status: 409, code: 'CODE_TOOL_EXISTS' },
} as const;

/** The one place a code tool outcome becomes a response. */
function answer<T>(c: Ctx, outcome: Outcome<T>, status: 200 | 201 = 200) {
  if (outcome.ok)
    return c.json({ ok: true, value: outcome.value, request_id: c.get('requestId') }, status);
  const e = ERRORS[outcome.reason];
  return restError(c, e.status, e.code, outcome.message);
}

/** The JSON body, or undefined after answering 400. */
async function body(
  c: Ctx,
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  try {
    return { ok: true, value: await c.req.json() };
  } catch (error) {
    return {
      ok: false,
      response: restError(
        c,
        400,
        'INVALID_CODE_TOOL',
        `the request body is not valid JSON: ${(error as Error).message}`,
      ),
    };
  }
}

export function codeToolRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.use('*', async (c, next) => {
    const caller = c.get('caller');
    if (caller?.kind !== 'admin')
      return restError(
        c,
        403,
        'ACCESS_DENIED',
        'code tools are managed with the admin API key only',
      );
    if (!runtime.codeTools)
      return restError(c, 503, 'FEATURE_DISABLED', 'this codemux has no code tool store');
    await next();
  });
  const tools = () => runtime.codeTools!;

  api.get('/', async (c) => answer(c, { ok: true, value: { tools: await tools().all() } }));
  api.post('/', async (c) => {
    const b = await body(c);
    return b.ok ? answer(c, await tools().create(b.value), 201) : b.response;
  });
  api.get('/:name', async (c) => answer(c, await tools().get(c.req.param('name'))));
  api.put('/:name', async (c) => {
    const b = await body(c);
    return b.ok ? answer(c, await tools().save(c.req.param('name'), b.value)) : b.response;
  });
  api.delete('/:name', async (c) => answer(c, await tools().remove(c.req.param('name'))));

  api.post('/:name/params', async (c) => {
    const b = await body(c);
    return b.ok ? answer(c, await tools().putParam(c.req.param('name'), b.value), 201) : b.response;
  });
  api.put('/:name/params/:param', async (c) => {
    const b = await body(c);
    if (!b.ok) return b.response;
    // The row's name may stay out of the body: it is the one in the path.
    const row =
      b.value !== null && typeof b.value === 'object' && !Array.isArray(b.value)
        ? { name: c.req.param('param'), ...(b.value as object) }
        : b.value;
    return answer(c, await tools().putParam(c.req.param('name'), row, c.req.param('param')));
  });
  api.delete('/:name/params/:param', async (c) =>
    answer(c, await tools().removeParam(c.req.param('name'), c.req.param('param'))),
  );

  api.get('/:name/versions', async (c) => {
    const versions = await tools().versions(c.req.param('name'));
    return answer(c, versions.ok ? { ok: true, value: { versions: versions.value } } : versions);
  });
  api.post('/:name/versions/:n/restore', async (c) => {
    const n = Number(c.req.param('n'));
    if (!Number.isInteger(n) || n < 1)
      return restError(c, 400, 'INVALID_CODE_TOOL', 'the version must be a positive integer');
    return answer(c, await tools().restore(c.req.param('name'), n));
  });

  api.post('/:name/run', async (c) => {
    const found = await tools().get(c.req.param('name'));
    if (!found.ok) return answer(c, found);
    if (found.value.code.trim() === '')
      return restError(
        c,
        400,
        'INVALID_CODE_TOOL',
        'code is empty; save a body before running the tool',
      );
    const b = await body(c);
    if (!b.ok) return b.response;
    const request = b.value as { arguments?: unknown } | null;
    if (request === null || typeof request !== 'object' || Array.isArray(request))
      return restError(c, 400, 'INVALID_CODE_TOOL', 'the body must be {"arguments": {...}}');
    const result = await runtime.service.runCodeTool(
      found.value,
      request.arguments ?? {},
      c.get('caller'),
      { via: surfaceOf(c) },
    );
    // Arguments that do not fit the params are bad input here, as the page's Test form sends them.
    const badArgs = !result.envelope.ok && result.envelope.error.code === 'INVALID_ARGS';
    return c.json(
      {
        ...result.envelope,
        ...(result.activityId ? { activity_id: result.activityId } : {}),
        request_id: c.get('requestId'),
      },
      badArgs ? 400 : statusFor(result.envelope),
    );
  });

  return api;
}
