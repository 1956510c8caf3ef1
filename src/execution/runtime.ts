/** @module Wires one running codemux: config -> upstream registry + sandbox pool -> execution service. */
import { Catalog, type ToolEntry } from '../catalog/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { SandboxPool } from '../sandbox/index.ts';
import { UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { ExecuteService } from './execute-service.ts';
import { ExecutionService } from './service.ts';

export interface Runtime {
  config: () => ResolvedConfig;
  /** Applies a reloaded config: servers and code_execution settings (not pool_size). */
  applyConfig(next: ResolvedConfig): Promise<void>;
  registry: UpstreamRegistry;
  catalog: Catalog;
  service: ExecutionService;
  /** The execute tool (code mode). */
  execute: ExecuteService;
  /** Starts the warm sandbox workers; in live mode also connects every server (not awaited). */
  start(): Promise<void>;
  /** Stops workers and upstream children; idempotent. */
  stop(): Promise<void>;
}

/** Tools of every server that is neither disabled nor quarantined, as catalog entries. */
function catalogEntries(registry: UpstreamRegistry): ToolEntry[] {
  const entries: ToolEntry[] = [];
  for (const server of registry.status()) {
    if (server.state === 'disabled' || server.state === 'quarantined') continue;
    for (const tool of registry.tools(server.name)) {
      entries.push({
        namespace: server.name,
        name: tool.name,
        qualifiedName: `${server.name}.${tool.name}`,
        description: tool.description ?? '',
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
      });
    }
  }
  return entries;
}

export interface RuntimeOptions {
  warmWorkers?: number;
  /** The gateway: connect every server at start and reconnect after drops. */
  live?: boolean;
}

export function createRuntime(
  initial: ResolvedConfig,
  logger: Logger,
  options: RuntimeOptions = {},
): Runtime {
  let config = initial;
  const registry = new UpstreamRegistry(config.servers, logger, { live: options.live });
  const pool = new SandboxPool({
    size: config.codeExecution.poolSize,
    warm: options.warmWorkers,
    memoryLimitBytes: config.codeExecution.memoryLimitMb * 1_048_576,
    engine: { onWarning: (message) => logger.warn(message) },
  });
  const current = () => config;
  const catalog = new Catalog({
    entries: () => catalogEntries(registry),
    toolkits: () => config.toolkits,
    version: () => registry.version,
    maxSearchResults: () => config.searchMaxResults,
    unavailable: () =>
      registry
        .status()
        .filter((s) => s.state === 'connecting' || s.state === 'failed' || s.state === 'idle')
        .map((s) => s.name),
  });
  const service = new ExecutionService({
    config: current,
    registry,
    catalog,
    executor: pool,
    logger,
  });
  const execute = new ExecuteService({
    config: current,
    registry,
    catalog,
    executor: pool,
    logger,
  });
  let stopping: Promise<void> | undefined;
  return {
    config: current,
    registry,
    catalog,
    service,
    execute,
    start: async () => {
      if (options.live) registry.start();
      await pool.start();
    },
    applyConfig: async (next) => {
      if (next.codeExecution.poolSize !== config.codeExecution.poolSize) {
        logger.warn(
          { from: config.codeExecution.poolSize, to: next.codeExecution.poolSize },
          'code_execution_pool_size changes apply after a restart',
        );
      }
      config = next;
      await registry.update(next.servers);
    },
    stop: () => {
      stopping ??= Promise.all([pool.stop(), registry.stop()]).then(() => {});
      return stopping;
    },
  };
}
