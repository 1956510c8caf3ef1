/**
 * @module REST that manages upstream servers (admin key only), written back to the config
 * file: `POST /api/v1/servers`, `GET|PATCH|DELETE /api/v1/servers/{name}`, `POST
 * /servers/{name}/{enable|disable|quarantine|unquarantine|restart}`, `GET
 * /servers/{name}/stderr`, `POST /servers/{name}/tools/{tool}/{disable|enable}`. Every write
 * goes through the file (ConfigFile), and the watcher's reload applies it before the answer.
 */
import { type Context, Hono } from 'hono';
import {
  ConfigEditError,
  type ConfigFile,
  type EditResult,
  MAX_TOOL_NAME_CHARS,
  type RawEntry,
  shownEntry,
} from '../config/index.ts';
import type { Runtime } from '../execution/index.ts';
import { adminOnly as guard } from './admin-only.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

type Ctx = Context<GatewayEnv>;
type Status = 400 | 403 | 404 | 409;

const CODES: Record<Status, string> = {
  400: 'INVALID_SERVER',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
};

/** The switches a server has: the config field each sets, and to what (`null`: removed). */
const SWITCHES: Record<string, RawEntry> = {
  // Back to a default, the key goes: the file does not fill up with defaults.
  enable: { enabled: null },
  disable: { enabled: false },
  quarantine: { quarantined: true },
  unquarantine: { quarantined: null },
};

const adminOnly = guard('servers are managed with the admin API key only');

export function serverRoutes(runtime: Runtime, configFile?: ConfigFile): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  /** Runs a write; its refusal (or a gateway without a file) becomes the answer. */
  const writing = async (c: Ctx, write: (file: ConfigFile) => Promise<Response>) => {
    if (!configFile) {
      return restError(
        c,
        409,
        'NO_CONFIG_FILE',
        'this gateway runs without a config file to write; edit its config and restart it',
      );
    }
    try {
      return await write(configFile);
    } catch (error) {
      if (!(error instanceof ConfigEditError)) throw error;
      return restError(c, error.status, CODES[error.status], error.message, {
        field: error.field,
      });
    }
  };

  const entryBody = async (c: Ctx): Promise<RawEntry> => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      throw new ConfigEditError(400, `the body is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ConfigEditError(400, 'the body must be a JSON object of server fields');
    }
    return body as RawEntry;
  };

  /** The answer to a write: the server as the file and the registry have it now. */
  const written = (c: Ctx, name: string, result: EditResult, status: 200 | 201 = 200) =>
    c.json(
      {
        ok: true,
        value: {
          server: runtime.registry.status().find((s) => s.name === name) ?? null,
          entry: shownEntry(result.entry),
          revision: result.revision,
          ...(result.replaced ? { replaced: result.replaced } : {}),
        },
        request_id: c.get('requestId'),
      },
      status,
    );

  const unknown = (c: Ctx, name: string) => restError(c, 404, 'NOT_FOUND', `no server "${name}"`);

  api.post('/servers', adminOnly, (c) =>
    writing(c, async (file) => {
      const entry = await entryBody(c);
      return written(c, String(entry.name), await file.add(entry), 201);
    }),
  );

  api.get('/servers/:name', adminOnly, (c) => {
    const name = c.req.param('name') ?? '';
    const status = runtime.registry.status().find((s) => s.name === name);
    if (!status) return unknown(c, name);
    // The file may be mid-edit (not JSON) or gone: the server is still shown, without its entry.
    let located: ReturnType<ConfigFile['server']>;
    let fileError: string | undefined;
    try {
      located = configFile?.server(name);
    } catch (error) {
      if (!(error instanceof ConfigEditError)) throw error;
      fileError = error.message;
    }
    const journal = runtime.registry.journal(name);
    return c.json({
      ok: true,
      value: {
        server: status,
        entry: located ? shownEntry(located.entry) : null,
        revision: located?.revision ?? null,
        ...(fileError ? { file_error: fileError } : {}),
        disabled_tools: runtime.registry.server(name)?.disabledTools ?? [],
        history: journal?.history ?? [],
      },
      request_id: c.get('requestId'),
    });
  });

  api.get('/servers/:name/stderr', adminOnly, (c) => {
    const name = c.req.param('name') ?? '';
    const journal = runtime.registry.journal(name);
    if (!journal) return unknown(c, name);
    return c.json({ ok: true, value: { lines: journal.stderr }, request_id: c.get('requestId') });
  });

  api.patch('/servers/:name', adminOnly, (c) =>
    writing(c, async (file) => {
      const name = c.req.param('name') ?? '';
      const base = c.req.header('if-match')?.replace(/^(W\/)?"|"$/g, '');
      return written(c, name, await file.update(name, await entryBody(c), base));
    }),
  );

  api.delete('/servers/:name', adminOnly, (c) =>
    writing(c, async (file) => {
      const name = c.req.param('name') ?? '';
      const result = await file.remove(name);
      return c.json({
        ok: true,
        value: { removed: name, entry: shownEntry(result.entry) },
        request_id: c.get('requestId'),
      });
    }),
  );

  for (const [action, change] of Object.entries(SWITCHES)) {
    api.post(`/servers/:name/${action}`, adminOnly, (c) =>
      writing(c, async (file) => {
        const name = c.req.param('name') ?? '';
        return written(c, name, await file.update(name, change));
      }),
    );
  }

  api.post('/servers/:name/restart', adminOnly, (c) => {
    const name = c.req.param('name') ?? '';
    const config = runtime.registry.server(name);
    if (!config) return unknown(c, name);
    if (!runtime.registry.restart(name)) {
      const why = config.enabled
        ? 'quarantined (unquarantine it first)'
        : 'disabled (enable it first)';
      return restError(c, 409, 'CONFLICT', `server "${name}" is ${why}`);
    }
    const server = runtime.registry.status().find((s) => s.name === name);
    return c.json({ ok: true, value: { server }, request_id: c.get('requestId') });
  });

  for (const action of ['disable', 'enable'] as const) {
    api.post(`/servers/:name/tools/:tool/${action}`, adminOnly, (c) =>
      writing(c, async (file) => {
        const name = c.req.param('name') ?? '';
        const tool = c.req.param('tool') ?? '';
        if (tool.length > MAX_TOOL_NAME_CHARS) {
          throw new ConfigEditError(
            400,
            `the tool name is longer than ${MAX_TOOL_NAME_CHARS} characters`,
            'tool',
          );
        }
        const listed = file.server(name)?.entry.disabled_tools;
        const current = Array.isArray(listed) ? listed.filter((t) => typeof t === 'string') : [];
        const others = current.filter((t) => t !== tool);
        const next = action === 'disable' ? [...others, tool] : others;
        return written(
          c,
          name,
          await file.update(name, { disabled_tools: next.length > 0 ? next : null }),
        );
      }),
    );
  }

  return api;
}
