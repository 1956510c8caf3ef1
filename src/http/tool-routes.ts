/**
 * @module REST for the dashboard's Tools page (admin key only): `GET /api/v1/tools?query=&limit=`
 * searches every usable tool with the catalog's BM25 index (all of them by name without a
 * query), `GET /api/v1/tools/{server}/{tool}` describes one with its TypeScript signature.
 */
import { Hono } from 'hono';
import type { ToolEntry } from '../catalog/index.ts';
import { MAX_SEARCH_QUERY_CHARS } from '../config/defaults.ts';
import { integerParam, judgeCall, type Runtime } from '../execution/index.ts';
import { didYouMean } from '../util/did-you-mean.ts';
import { adminOnly as guard } from './admin-only.ts';
import { restError } from './rest-error.ts';
import type { GatewayEnv } from './types.ts';

export const TOOLS_DEFAULT_LIMIT = 50;
export const TOOLS_MAX_LIMIT = 200;

const every = () => true;

const adminOnly = guard('browsing every tool is for the admin API key only');

const item = (e: ToolEntry) => ({
  server: e.namespace,
  tool: e.name,
  description: e.description,
  ...(e.annotations && Object.keys(e.annotations).length > 0 ? { annotations: e.annotations } : {}),
  ...(e.held ? { held: true } : {}),
});

export function toolRoutes(runtime: Runtime): Hono<GatewayEnv> {
  const api = new Hono<GatewayEnv>();

  api.get('/tools', adminOnly, (c) => {
    const query = c.req.query('query') ?? '';
    if (query.length > MAX_SEARCH_QUERY_CHARS) {
      return restError(
        c,
        400,
        'INVALID_REQUEST',
        `query must be at most ${MAX_SEARCH_QUERY_CHARS} characters (got ${query.length}); search with a few keywords`,
      );
    }
    const limit = integerParam(
      'limit',
      c.req.query('limit'),
      1,
      TOOLS_MAX_LIMIT,
      TOOLS_DEFAULT_LIMIT,
    );
    if (typeof limit === 'string') return restError(c, 400, 'INVALID_REQUEST', limit);
    // One more than asked says whether there are more without counting every hit.
    const found = runtime.catalog.find(query, every, limit + 1);
    return c.json({ items: found.slice(0, limit).map(item), has_more: found.length > limit });
  });

  api.get('/tools/:server/:tool', adminOnly, (c) => {
    const server = c.req.param('server') ?? '';
    const tool = c.req.param('tool') ?? '';
    const described = runtime.catalog.run(
      'tools.describe',
      { namespace: server, name: tool },
      every,
    );
    if (!described.ok) {
      if (described.error.code === 'catalog_unavailable')
        return restError(c, 503, 'CATALOG_UNAVAILABLE', described.error.message);
      // A tool hidden on purpose is said so, not guessed at.
      const config = runtime.registry.server(server);
      const hidden = !config
        ? undefined
        : !config.enabled
          ? `server "${server}" is disabled in the config`
          : config.quarantined
            ? `server "${server}" is quarantined`
            : config.disabledTools.includes(tool)
              ? `${server}.${tool} is disabled (it is in the "disabled_tools" of server "${server}")`
              : undefined;
      if (hidden) {
        return restError(
          c,
          404,
          'NOT_FOUND',
          `no tool "${server}.${tool}": ${hidden}; see /ui/servers/${server}`,
        );
      }
      const known = runtime.catalog.find('', every, Number.MAX_SAFE_INTEGER);
      const hint = didYouMean(
        `${server}.${tool}`,
        known.map((e) => e.qualifiedName),
      );
      return restError(c, 404, 'NOT_FOUND', `no tool "${server}.${tool}"${hint}`);
    }
    const d = described.data as {
      description: string;
      inputSchema: Record<string, unknown>;
      outputSchema: Record<string, unknown> | null;
      annotations?: Record<string, unknown>;
      held?: boolean;
      typescript: string;
    };
    return c.json({
      server,
      tool,
      description: d.description,
      input_schema: d.inputSchema,
      ...(d.outputSchema ? { output_schema: d.outputSchema } : {}),
      ...(d.annotations ? { annotations: d.annotations } : {}),
      ...(d.held ? { held: true } : {}),
      signature: d.typescript,
      // What the call gate decides for a call now: it judges the annotations as listed now.
      policy: judgeCall(
        runtime.config().toolPolicy,
        server,
        tool,
        runtime.registry.tools(server).find((t) => t.name === tool)?.annotations,
      ),
    });
  });

  return api;
}
