/** @module One configured server inside the registry (its connection, limits, state), what makes its connection, and the registry's small helpers. */
import type { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import type { ServerConfig } from '../config/index.ts';
import type { Logger } from '../util/logger.ts';
import type { ConcurrencyLimiter } from './limiter.ts';
import { maskedLogger } from './masked-logger.ts';
import type { UpstreamAuth } from './oauth/types.ts';
import type { StopSchedule } from './process-reaper.ts';
import { SdkConnection } from './sdk-connection.ts';
import { SecretMask } from './secret-mask.ts';
import type { ServerJournal } from './server-journal.ts';
import type {
  ClusterSlots,
  ServerState,
  ServerStatus,
  ToolInfo,
  UpstreamConnection,
} from './types.ts';

export interface Entry {
  config: ServerConfig;
  connection: UpstreamConnection;
  limiter: ConcurrencyLimiter;
  state: ServerState;
  lastError?: string;
  /** Why the last established connection dropped, until the next successful start. */
  dropReason?: string;
  failure?: { at: number; message: string };
  reconnect?: NodeJS.Timeout;
  attempts: number;
  removed: boolean;
  /** Its OAuth side (http/sse with an OAuth store). */
  auth?: UpstreamAuth;
  /** Why it waits for an OAuth sign-in (state needs_auth): no connect is tried until one. */
  needsAuth?: string;
  /** Its `disabled_tools`. */
  disabled: ReadonlySet<string>;
  /** Its history and stderr (shared by the entries the server has over its life). */
  journal: ServerJournal;
}

export type ConnectionFactory = (
  server: ServerConfig,
  logger: Logger,
  maxMessageBytes?: () => number,
  schedule?: StopSchedule,
  auth?: UpstreamAuth,
  /** The server's credentials, masked out of whatever the connection reports or logs. */
  secrets?: SecretMask,
) => UpstreamConnection;

export const sdkFactory: ConnectionFactory = (
  server,
  logger,
  maxMessageBytes,
  schedule,
  auth,
  secrets = new SecretMask().configure(server),
) =>
  new SdkConnection(
    server,
    maskedLogger(logger, secrets),
    maxMessageBytes,
    schedule,
    auth,
    secrets,
  );

export interface RegistryOptions {
  /** Live (the gateway): connect every enabled server at start and reconnect after drops. */
  live?: boolean;
  factory?: ConnectionFactory;
  /** Cluster-wide slots for servers with `cluster_max_concurrent_requests` (PostgreSQL). */
  clusterSlots?: ClusterSlots;
  /** The largest message an upstream may send (config's maxUpstreamMessageBytes, read per message). */
  maxMessageBytes?: () => number;
  /** Asked just before a call is sent, with the tool as listed now: a refusal keeps it unsent (pinning). */
  admit?: (server: string, tool: ToolInfo) => { code: 'TOOL_CHANGED'; message: string } | undefined;
  /** The OAuth side of an http/sse server's connection (upstream/oauth). */
  auth?: (server: ServerConfig) => UpstreamAuth | undefined;
}

/** Why a disabled tool is not there, in the words of an unknown tool (it is handled as one). */
export function disabledToolMessage(server: string, tool: string): string {
  return `tool not found: ${server}.${tool} is disabled (it is in the "disabled_tools" of server "${server}" in the config; remove it there or switch it on on the dashboard's page of ${server})`;
}

export function sameButDisabledTools(a: ServerConfig, b: ServerConfig): boolean {
  return isDeepStrictEqual({ ...a, disabledTools: [] }, { ...b, disabledTools: [] });
}

export function disabledToolsText(config: ServerConfig): string {
  return config.disabledTools.length === 0
    ? 'no tool disabled'
    : `disabled tools: ${config.disabledTools.join(', ')}`;
}

/** Resolves when `unsettled()` turns false (checked on each 'state' of `emitter`) or after `timeoutMs`. */
export function untilSettled(
  emitter: EventEmitter,
  unsettled: () => boolean,
  timeoutMs: number,
): Promise<void> {
  if (!unsettled() || timeoutMs <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      emitter.off('state', check);
      resolve();
    };
    const check = () => {
      if (!unsettled()) done();
    };
    const timer = setTimeout(done, timeoutMs);
    emitter.on('state', check);
  });
}

/** How the status surfaces show `entry`, which has `tools` usable tools. */
export function statusOf(entry: Entry, tools: number): ServerStatus {
  const version = entry.connection.protocolVersion;
  return {
    name: entry.config.name,
    protocol: entry.config.protocol,
    state: entry.state,
    tools,
    ...(entry.lastError ? { last_error: entry.lastError } : {}),
    ...(version ? { protocol_version: version } : {}),
  };
}
