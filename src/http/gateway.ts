/** @module The HTTP gateway process part: listens, serves the app, shuts down in order. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Runtime } from '../execution/index.ts';
import { createCodeModeServer } from '../mcp/index.ts';
import type { TokenStore } from '../store/index.ts';
import type { Logger } from '../util/logger.ts';
import { createApp } from './app.ts';
import { McpSessions } from './mcp-sessions.ts';

export interface GatewayOptions {
  runtime: Runtime;
  tokens: TokenStore;
  adminKey: string;
  host: string;
  port: number;
  logger: Logger;
}

type NodeServer = ReturnType<typeof serve> & {
  requestTimeout: number;
  closeAllConnections(): void;
};

export class HttpGateway {
  private server: NodeServer | undefined;
  private readonly sessions: McpSessions;
  private readonly codeModeSessions: McpSessions;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: GatewayOptions) {
    this.sessions = new McpSessions(options.runtime, options.logger);
    this.codeModeSessions = new McpSessions(
      options.runtime,
      options.logger,
      createCodeModeServer,
      '/mcp/codemode/messages',
    );
  }

  /** Listens; resolves with the bound address. Rejects when the port is taken. */
  start(): Promise<AddressInfo> {
    const { runtime, tokens, adminKey, host, port, logger } = this.options;
    const app = createApp({
      runtime,
      auth: { adminKey, tokens },
      sessions: this.sessions,
      codeModeSessions: this.codeModeSessions,
      logger,
      listenPort: port,
    });
    return new Promise((resolve, reject) => {
      const server = serve({ fetch: app.fetch, hostname: host, port }, (info) =>
        resolve(info),
      ) as NodeServer;
      // Executions may run up to 600 s; the route's own deadline follows timeout_ms.
      server.requestTimeout = 0;
      server.on('error', reject);
      this.server = server;
    });
  }

  /** Closes MCP sessions, then the listener and its connections; idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all([this.sessions.closeAll(), this.codeModeSessions.closeAll()]);
      const server = this.server;
      if (!server) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    })();
    return this.stopping;
  }
}
