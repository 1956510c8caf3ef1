/** @module Runs `codemux stdio`: the MCP server over stdin/stdout, logs on stderr only. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { logFormatFrom, logLevelFrom } from '../config/index.ts';
import { ADMIN, createRuntime } from '../execution/index.ts';
import { createCodeModeServer, createMcpServer } from '../mcp/index.ts';
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
  const logger = createLogger(logLevelFrom(flags.logLevel, 'info'), logFormatFrom(flags.logFormat));
  const config = loadConfigOrExit(flags);
  if (!config) return;
  // The store records activity on both dialects; code tools are served on the default one.
  const { oauthOf, openStoreOrExit } = await import('./open-store.ts');
  const store = await openStoreOrExit(config);
  const runtime = createRuntime(config, logger, {
    warmWorkers: 2,
    live: true,
    activityStore: store.activity,
    toolPinStore: store.toolPins,
    approvalStore: store.approvals,
    oauth: oauthOf(store, config),
    ...(flags.codemode ? {} : { codeToolStore: store.codeTools }),
  });
  const server = flags.codemode
    ? createCodeModeServer(runtime)
    : createMcpServer(runtime, ADMIN, { startupWaitMs: config.startupWaitMs });
  runtime.codeTools?.on('changed', () => void server.sendToolListChanged().catch(() => {}));
  const transport = new StdioServerTransport();
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'codemux stdio stopping');
    await server.close().catch(() => {});
    await runtime.stop();
    await store.close();
    process.exit(0);
  };
  transport.onclose = () => void shutdown('client closed stdin');
  process.stdin.on('end', () => void shutdown('stdin ended'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await runtime.start();
  await server.connect(transport);
  logger.info(
    { config: config.path, servers: config.servers.map((s) => s.name) },
    'codemux stdio ready',
  );
}
