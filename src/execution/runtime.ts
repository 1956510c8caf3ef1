/** @module Wires one running codemux: config -> upstream registry + sandbox pool -> execution service. */
import type { ResolvedConfig } from '../config/index.ts';
import { SandboxPool } from '../sandbox/index.ts';
import { UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { ExecutionService } from './service.ts';

export interface Runtime {
  config: () => ResolvedConfig;
  registry: UpstreamRegistry;
  service: ExecutionService;
  /** Starts the warm sandbox workers (upstreams start on first use). */
  start(): Promise<void>;
  /** Stops workers and upstream children; idempotent. */
  stop(): Promise<void>;
}

export function createRuntime(
  config: ResolvedConfig,
  logger: Logger,
  options: { warmWorkers?: number } = {},
): Runtime {
  const registry = new UpstreamRegistry(config.servers, logger);
  const pool = new SandboxPool({
    size: config.codeExecution.poolSize,
    warm: options.warmWorkers,
    memoryLimitBytes: config.codeExecution.memoryLimitMb * 1_048_576,
  });
  const current = () => config;
  const service = new ExecutionService({ config: current, registry, executor: pool, logger });
  let stopping: Promise<void> | undefined;
  return {
    config: current,
    registry,
    service,
    start: () => pool.start(),
    stop: () => {
      stopping ??= Promise.all([pool.stop(), registry.stop()]).then(() => {});
      return stopping;
    },
  };
}
