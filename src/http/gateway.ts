/** @module The HTTP gateway process part: listens, serves the app, shuts down in order. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { ConfigFile } from '../config/index.ts';
import type { Runtime } from '../execution/index.ts';
import type { TokenStore } from '../store/index.ts';
import type { Logger } from '../util/logger.ts';
import { createApp } from './app.ts';
import { EventBudget } from './event-budget.ts';
import { McpSessions } from './mcp-sessions.ts';
import type { GatewayEnv } from './types.ts';

export interface GatewayOptions {
  runtime: Runtime;
  tokens: TokenStore;
  adminKey: string;
  host: string;
  port: number;
  logger: Logger;
  /** Where server changes made over REST and the dashboard are written. */
  configFile?: ConfigFile;
}

type NodeServer = ReturnType<typeof serve> & {
  requestTimeout: number;
  closeAllConnections(): void;
  closeIdleConnections(): void;
};

export class HttpGateway {
  private server: NodeServer | undefined;
  private readonly sessions: McpSessions;
  private readonly codeModeSessions: McpSessions;
  private stopping: Promise<void> | undefined;
  private draining = false;
  /** Requests other than GET (whose streams live long) whose response is not finished yet. */
  private inFlight = 0;
  private onFlushed: (() => void) | undefined;
  /** The app this gateway serves (requests can be made to it in process without listening). */
  readonly app: Hono<GatewayEnv>;

  constructor(private readonly options: GatewayOptions) {
    // One replay budget for both sets: its bound holds for the whole gateway.
    const eventBudget = new EventBudget();
    this.sessions = new McpSessions(options.runtime, options.logger, { eventBudget });
    this.codeModeSessions = new McpSessions(options.runtime, options.logger, {
      dialect: 'codemode',
      endpoint: '/mcp/codemode',
      messagesPath: '/mcp/codemode/messages',
      eventBudget,
    });
    const { runtime, tokens, adminKey, port, logger } = options;
    this.app = createApp({
      runtime,
      auth: { adminKey, tokens },
      sessions: this.sessions,
      codeModeSessions: this.codeModeSessions,
      logger,
      listenPort: port,
      draining: () => this.draining,
      configFile: options.configFile,
    });
  }

  /** Listens; resolves with the bound address. Rejects when the port is taken. */
  start(): Promise<AddressInfo> {
    const { host, port } = this.options;
    return new Promise((resolve, reject) => {
      const server = serve({ fetch: this.app.fetch, hostname: host, port }, (info) =>
        resolve(info),
      ) as NodeServer;
      // Executions may run up to 600 s; the route's own deadline follows timeout_ms.
      server.requestTimeout = 0;
      server.on('error', reject);
      server.on('request', (req, res) => {
        if (req.method === 'GET') return;
        this.inFlight++;
        res.once('close', () => {
          if (--this.inFlight === 0) this.onFlushed?.();
        });
      });
      this.server = server;
    });
  }

  /** Shutdown, first step: stop listening; requests on open connections are answered 503. */
  beginDrain(): void {
    if (this.draining) return;
    this.draining = true;
    this.server?.close();
    this.server?.closeIdleConnections();
  }

  /** Resolves when every non-GET response has been sent, or after `ms`. */
  async flush(ms: number): Promise<void> {
    if (this.inFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.onFlushed = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
  }

  /** Closes MCP sessions, then the listener and its connections; idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all([this.sessions.closeAll(), this.codeModeSessions.closeAll()]);
      const server = this.server;
      if (!server) return;
      await new Promise<void>((resolve) => {
        if (!server.listening) resolve();
        else server.close(() => resolve());
        server.closeAllConnections();
      });
    })();
    return this.stopping;
  }
}
