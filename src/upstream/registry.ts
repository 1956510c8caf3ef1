/**
 * @module The upstream servers of the active config: connections started on first use,
 * per-server concurrency limits, and calls that always come back as a CallOutcome.
 */
import { UPSTREAM_RETRY_AFTER_MS } from '../config/defaults.ts';
import type { ServerConfig } from '../config/index.ts';
import type { Logger } from '../util/logger.ts';
import { ConcurrencyLimiter } from './limiter.ts';
import { SdkConnection } from './sdk-connection.ts';
import type { CallOptions, CallOutcome, ToolInfo, UpstreamConnection } from './types.ts';

interface Entry {
  config: ServerConfig;
  connection: UpstreamConnection;
  limiter: ConcurrencyLimiter;
  failure?: { at: number; message: string };
}

export type ConnectionFactory = (server: ServerConfig, logger: Logger) => UpstreamConnection;

/** JSON-RPC code of the SDK's request timeout (ErrorCode.RequestTimeout), checked without importing the SDK. */
const REQUEST_TIMEOUT_CODE = -32001;

const sdkFactory: ConnectionFactory = (server, logger) => new SdkConnection(server, logger);

export class UpstreamRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(
    servers: readonly ServerConfig[],
    private readonly logger: Logger,
    factory: ConnectionFactory = sdkFactory,
  ) {
    for (const config of servers) {
      this.entries.set(config.name, {
        config,
        connection: factory(config, logger.child({ server: config.name })),
        limiter: new ConcurrencyLimiter(config.maxConcurrentRequests, config.queueSize),
      });
    }
  }

  /** The configured server called `name`, if any. */
  server(name: string): ServerConfig | undefined {
    return this.entries.get(name)?.config;
  }

  serverNames(): string[] {
    return [...this.entries.keys()];
  }

  /** Tools of a connected server (empty until it has connected). */
  tools(name: string): readonly ToolInfo[] {
    return this.entries.get(name)?.connection.tools() ?? [];
  }

  /** Connects `name` unless it is connected; a recent failure is answered from memory. */
  async ensureStarted(name: string): Promise<{ ok: true } | { ok: false; message: string }> {
    const entry = this.entries.get(name);
    if (!entry) return { ok: false, message: `server not found: ${name}` };
    if (entry.connection.connected) return { ok: true };
    if (entry.failure && Date.now() - entry.failure.at < UPSTREAM_RETRY_AFTER_MS) {
      return { ok: false, message: entry.failure.message };
    }
    try {
      await entry.connection.start();
      entry.failure = undefined;
      return { ok: true };
    } catch (error) {
      const message = `server '${name}' failed to start: ${(error as Error).message}`;
      entry.failure = { at: Date.now(), message };
      this.logger.warn({ server: name }, message);
      return { ok: false, message };
    }
  }

  /** Calls `server`.`tool`; never throws. */
  async call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallOutcome> {
    const entry = this.entries.get(server);
    if (!entry)
      return { ok: false, code: 'UPSTREAM_ERROR', message: `server not found: ${server}` };
    if (!entry.config.enabled) {
      return {
        ok: false,
        code: 'SERVER_UNAVAILABLE',
        message: `server '${server}' is disabled in the config (set "enabled": true to use it)`,
      };
    }
    const started = await this.ensureStarted(server);
    if (!started.ok) return { ok: false, code: 'SERVER_UNAVAILABLE', message: started.message };
    if (!entry.connection.tools().some((t) => t.name === tool)) {
      return { ok: false, code: 'UPSTREAM_ERROR', message: `tool not found: ${server}.${tool}` };
    }
    const release = await entry.limiter.acquire(options.signal);
    if (!release) {
      if (options.signal?.aborted) return cancelled(server, tool);
      return {
        ok: false,
        code: 'QUEUE_FULL',
        message: `server '${server}' already has ${entry.config.maxConcurrentRequests} calls in flight (max_concurrent_requests) and ${entry.config.queueSize} waiting (queue_size)`,
      };
    }
    const timeoutMs = minDefined(entry.config.callTimeoutMs, options.timeoutMs);
    try {
      const result = await entry.connection.callTool(tool, args, {
        signal: options.signal,
        timeoutMs,
      });
      return { ok: true, result };
    } catch (error) {
      if (options.signal?.aborted) return cancelled(server, tool);
      if ((error as { code?: unknown }).code === REQUEST_TIMEOUT_CODE) {
        return {
          ok: false,
          code: 'UPSTREAM_TIMEOUT',
          message: `server '${server}' did not answer ${tool} within ${timeoutMs} ms`,
        };
      }
      if (!entry.connection.connected) {
        return {
          ok: false,
          code: 'SERVER_UNAVAILABLE',
          message: `server '${server}' disconnected during ${tool}: ${(error as Error).message}`,
        };
      }
      return {
        ok: false,
        code: 'UPSTREAM_ERROR',
        message: `${server}.${tool}: ${(error as Error).message}`,
      };
    } finally {
      release();
    }
  }

  /** Closes every connection (and so every stdio child); idempotent. */
  async stop(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.connection.stop()));
  }
}

function cancelled(server: string, tool: string): CallOutcome {
  return {
    ok: false,
    code: 'UPSTREAM_ERROR',
    message: `${server}.${tool}: the call was cancelled (the execution ended)`,
  };
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
