/**
 * @module The gateway's HTTP app in this process, for tests of HTTP behaviour (status, headers,
 * body shapes, auth, Host/Origin): the real config, store, runtime and `createApp`, asked
 * through `app.request()`, with no port and no child process. Routes that need the socket
 * (the legacy SSE stream, max_request_bytes on a streamed body) still need `startGateway`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { oauthOf } from '../src/cli/open-store.ts';
import { loadConfig } from '../src/config/index.ts';
import { createRuntime, type Runtime } from '../src/execution/index.ts';
import { EventBudget } from '../src/http/event-budget.ts';
import { createApp } from '../src/http/index.ts';
import { McpSessions } from '../src/http/mcp-sessions.ts';
import { ensureAdminKey, openConfiguredStore } from '../src/store/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { writeConfig } from './helpers.ts';

/** The port the app believes it listens on (the only one a keyless Host may name); nothing binds it. */
export const IN_PROCESS_PORT = 47_123;

export interface InProcessGateway {
  /** The admin key written to the config's data_dir, as `codemux serve` makes it. */
  key: string;
  /** The port keyless Host headers must name. */
  port: number;
  configFile: string;
  runtime: Runtime;
  /** The origin the app's URLs are written with (nothing listens there). */
  url: string;
  /** One request to the app; `path` is relative (`/mcp`), headers as given. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** `fetch` answered by the app, for clients that take one (the MCP SDK's transports). */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
  /** REST call with the admin key unless `headers` say otherwise, as RunningGateway.rest. */
  rest(
    method: string,
    route: string,
    body?: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
  ): Promise<{ status: number; json: any }>;
  stop(): Promise<void>;
}

/**
 * Builds the app as `codemux serve` does (its store, its runtime with the store's parts, both
 * MCP session sets) from a config written to a temp dir; `config` is the file's JSON.
 */
export async function startInProcess(
  config: Record<string, unknown> = {},
): Promise<InProcessGateway> {
  const configFile = writeConfig({ ...config, listen: `127.0.0.1:${IN_PROCESS_PORT}` });
  const resolved = loadConfig(configFile, { mustExist: true });
  const key = ensureAdminKey(resolved).key;
  const store = await openConfiguredStore(resolved);
  const logger = silentLogger();
  const runtime = createRuntime(resolved, logger, {
    live: true,
    warmWorkers: 2,
    codeToolStore: store.codeTools,
    activityStore: store.activity,
    toolPinStore: store.toolPins,
    approvalStore: store.approvals,
    executionRunStore: store.executionRuns,
    clusterSlots: store.clusterSlots,
    oauth: oauthOf(store, resolved),
  });
  await runtime.start();
  const eventBudget = new EventBudget();
  const sessions = new McpSessions(runtime, logger, { eventBudget });
  const codeModeSessions = new McpSessions(runtime, logger, {
    dialect: 'codemode',
    endpoint: '/mcp/codemode',
    messagesPath: '/mcp/codemode/messages',
    eventBudget,
  });
  const app = createApp({
    runtime,
    auth: { adminKey: key, tokens: store.tokens },
    sessions,
    codeModeSessions,
    logger,
    listenPort: resolved.listenPort,
  });
  const base = `http://127.0.0.1:${IN_PROCESS_PORT}`;
  const fetch = async (url: string | URL, init?: RequestInit) => app.request(String(url), init);
  const request = (route: string, init?: RequestInit) => fetch(`${base}${route}`, init);
  return {
    key,
    port: resolved.listenPort,
    configFile,
    runtime,
    url: base,
    request,
    fetch,
    async rest(method, route, body, headers) {
      const response = await request(route, {
        method,
        headers: headers ?? { 'x-api-key': key, 'content-type': 'application/json' },
        body:
          body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    },
    async stop() {
      await Promise.all([sessions.closeAll(), codeModeSessions.closeAll()]);
      await runtime.stop();
      await store.close();
      fs.rmSync(path.dirname(configFile), { recursive: true, force: true });
    },
  };
}
