/**
 * @module Runs `codemux stdio`: the MCP server over stdin/stdout, logs on stderr only. The 2.x
 * SDK's serveStdio serves a client of either protocol generation: the connection's first message
 * decides (2026-07-28 envelope, or the 2025 `initialize`).
 */
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { TRACE_FLUSH_MS } from '../config/defaults.ts';
import { logFormatFrom, logLevelFrom } from '../config/index.ts';
import { createRuntime } from '../execution/index.ts';
import { createGenerationServer } from '../mcp/generation-server.ts';
import { GenerationStdioTransport } from '../mcp/generation-stdio-transport.ts';
import { startTracing, stopTracing, traceLogFields } from '../telemetry/index.ts';
import { createLogger } from '../util/logger.ts';
import { loadConfigOrExit } from './load-config.ts';

export interface StdioFlags {
  config?: string;
  logLevel?: string;
  logFormat?: string;
  /** Serve the code mode dialect: `execute` as the only tool. */
  codemode?: boolean;
}

/** Serves MCP on stdio until stdin closes or a signal arrives. */
export async function runStdio(flags: StdioFlags): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  // With traces on, each line written inside a span carries its trace_id and span_id.
  const logger = createLogger(
    logLevelFrom(flags.logLevel, 'info'),
    logFormatFrom(flags.logFormat),
    config.traces ? traceLogFields : undefined,
  );
  await startTracing(config, logger);
  // The store records activity on both dialects; code tools are served on the default one.
  const { oauthOf, openStoreOrExit } = await import('./open-store.ts');
  const store = await openStoreOrExit(config, { activityWriter: true });
  const runtime = createRuntime(config, logger, {
    warmWorkers: 2,
    live: true,
    activityStore: store.activity,
    toolPinStore: store.toolPins,
    approvalStore: store.approvals,
    executionRunStore: store.executionRuns,
    oauth: oauthOf(store, config),
    ...(flags.codemode ? {} : { codeToolStore: store.codeTools }),
  });
  const dialect = flags.codemode ? 'codemode' : 'default';
  let startup: Promise<void> | undefined;
  const whenSettled =
    dialect === 'default'
      ? () => (startup ??= runtime.registry.whenSettled(config.startupWaitMs))
      : undefined;
  // The instance serving the connection (and a discarded server/discover probe's, briefly).
  const instances = new Set<Server>();
  const announce = () => {
    for (const server of instances) void server.sendToolListChanged().catch(() => {});
  };
  if (dialect === 'default') {
    runtime.registry.on('tools', announce);
    runtime.codeTools?.on('changed', announce);
  }
  let closing = false;
  let connection: { close(): Promise<void> } | undefined;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'codemux stdio stopping');
    await connection?.close().catch(() => {});
    await runtime.stop();
    await stopTracing(TRACE_FLUSH_MS);
    await store.close();
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown('stdin ended'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await runtime.start();
  const transport = new GenerationStdioTransport();
  connection = await serveStdio(
    (context) => {
      const server = createGenerationServer(runtime, dialect, context, { whenSettled });
      instances.add(server);
      transport.legacy = context.era === 'legacy';
      const closed = server.onclose;
      server.onclose = () => {
        instances.delete(server);
        closed?.();
      };
      return server;
    },
    {
      transport,
      onerror: (error) => logger.debug({ err: error.message }, 'stdio message refused'),
    },
  );
  logger.info(
    { config: config.path, servers: config.servers.map((s) => s.name) },
    'codemux stdio ready',
  );
}
