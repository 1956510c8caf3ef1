/** @module REST under /api/v1: code execution and server status (tools with annotations and policy verdicts). */
import { type Context, Hono, type Next } from 'hono';
import {
  type Caller,
  continueRun,
  continuesRun,
  judgeCall,
  messageFor,
  policyCounts,
  type Runtime,
  startCodeExecution,
} from '../execution/index.ts';
import { listScripts, resolveScript, SCRIPT_REFUSAL_PREFIX, scriptsDir } from '../scripts/index.ts';
import { restError } from './rest-error.ts';
import { refusedResponse, runAnswerResponse, surfaceOf } from './run-answer.ts';
import { refusalStatus } from './status.ts';
import type { GatewayEnv } from './types.ts';

/** 403 in the /code routes' answer shape (`{success: false, error}`) for anyone but the admin key. */
function scriptsAdminOnly(message: string) {
  return async (c: Context<GatewayEnv>, next: Next) => {
    if (c.get('caller').kind !== 'admin') return c.json({ success: false, error: message }, 403);
    await next();
  };
}

export function restRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.post('/code/exec', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `the request body is not valid JSON: ${(error as Error).message}`,
      );
    }
    // A body with execution_id continues a run that answered running (as MCP's code_execution).
    if (continuesRun(body)) {
      const answer = await continueRun(runtime, body, 'code_execution', c.get('caller'), {
        signal: c.req.raw.signal,
      });
      if (answer.state === 'refused') return refusedResponse(c, answer.error);
      return runAnswerResponse(c, answer, surfaceOf(c));
    }
    // REST's own field: dry_run (the playground) answers upstream calls with a stub.
    let dryRun = false;
    if (typeof body === 'object' && body !== null && 'dry_run' in body) {
      const { dry_run, ...rest } = body as Record<string, unknown>;
      if (typeof dry_run !== 'boolean') {
        return restError(c, 400, 'INVALID_REQUEST', 'dry_run must be true or false');
      }
      dryRun = dry_run;
      body = rest;
    }
    const surface = surfaceOf(c);
    // A run not ended after code_execution_yield_ms answers running; one that ends in time
    // answers exactly as before. A client that goes away before then cancels the run (its
    // approvals expire); after it, the run goes on.
    const answer = await startCodeExecution(runtime, body, c.get('caller'), {
      signal: c.req.raw.signal,
      run: { surface, dryRun },
    });
    if (answer.state === 'refused') return refusedResponse(c, answer.error);
    return runAnswerResponse(c, answer, surface);
  });

  api.get(
    '/code/scripts',
    scriptsAdminOnly(
      'Agent tokens cannot list stored scripts (the stored-script listing is available to administrators only)',
    ),
    (c) => c.json({ success: true, data: listScripts(scriptsDir(runtime.config())) }),
  );

  // One script's source, for the dashboard's script page: resolved as a run resolves it (the
  // name is checked before the filesystem is touched; no symlink is followed).
  api.get(
    '/code/scripts/:name',
    scriptsAdminOnly(
      "Agent tokens cannot read stored scripts' source (it is available to administrators only)",
    ),
    (c) => {
      const name = c.req.param('name') ?? '';
      const script = resolveScript(name, { dir: scriptsDir(runtime.config()), admin: true });
      if (!script.ok) {
        const status = refusalStatus(script.code);
        return c.json(
          {
            success: false,
            code: script.code,
            error: script.message.replace(SCRIPT_REFUSAL_PREFIX, ''),
          },
          status === 200 ? 400 : status,
        );
      }
      const { language, source, path } = script;
      return c.json({ success: true, data: { name, language, path, source } });
    },
  );

  api.get('/servers', (c) => {
    const caller: Caller = c.get('caller');
    const scope = caller.kind === 'agent' ? new Set(caller.servers) : undefined;
    const servers = runtime.registry
      .status()
      .filter((s) => !scope || scope.has(s.name))
      .map((s) => (s.last_error ? { ...s, last_error: messageFor(s.last_error, caller) } : s));
    // How many of the listed tools tool_policy holds for approval or refuses.
    const policy = policyCounts(
      runtime.config().toolPolicy,
      servers.map((s) => ({ name: s.name, tools: runtime.registry.tools(s.name) })),
    );
    return c.json({ ok: true, value: { servers, policy }, request_id: c.get('requestId') });
  });

  api.get('/servers/:name/tools', (c) => {
    const caller: Caller = c.get('caller');
    const name = c.req.param('name');
    const visible = caller.kind === 'admin' || caller.servers.includes(name);
    if (!visible || !runtime.registry.server(name)) {
      return restError(c, 404, 'NOT_FOUND', `no server "${name}"`);
    }
    // The verdict the call gate would give now: it judges the annotations as listed, too.
    const policy = runtime.config().toolPolicy;
    // An admin sees the tools `disabled_tools` hides too, marked (to switch them back on).
    const disabled = new Set(runtime.registry.server(name)?.disabledTools);
    const listed =
      caller.kind === 'admin' ? runtime.registry.listedTools(name) : runtime.registry.tools(name);
    const tools = listed.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      input_schema: t.inputSchema,
      annotations: t.annotations ?? {},
      policy: judgeCall(policy, name, t.name, t.annotations),
      ...(disabled.has(t.name) ? { disabled: true } : {}),
      ...(runtime.pins.isPinned(name, t.name) ? { pinned: true } : {}),
    }));
    return c.json({ ok: true, value: { server: name, tools }, request_id: c.get('requestId') });
  });

  return api;
}
