/** @module Sending one admitted call: a slot here, a cluster slot, the call, its outcome (its result masked of the server's credentials). */
import type { ServerConfig } from '../config/index.ts';
import { TOOL_ERROR, tracing } from '../telemetry/index.ts';
import { cancelled, failedCall, minDefined } from './call-failure.ts';
import { waitingMessage } from './oauth/needs-auth.ts';
import type { Entry } from './registry-entry.ts';
import { maskResult } from './result-mask.ts';
import type { CallOptions, CallOutcome, ClusterSlots } from './types.ts';

const NO_CLUSTER_LIMIT = { ok: true, release: () => {} } as const;

/** A cluster-wide slot when the server has `cluster_max_concurrent_requests` and a cluster is configured. */
function clusterSlot(config: ServerConfig, slots: ClusterSlots | undefined, signal?: AbortSignal) {
  const limit = config.clusterMaxConcurrentRequests;
  if (limit === undefined || !slots) return NO_CLUSTER_LIMIT;
  return slots.acquire(config.name, limit, { queueSize: config.queueSize, signal });
}

/**
 * Sends `tool` to the entry's connected server; never throws. Under a span, the call is a
 * CLIENT span of its own (the wait for a slot included), failed with the outcome's code, or
 * `tool_error` for a result that says `isError`.
 */
export async function sendCall(
  entry: Entry,
  clusterSlots: ClusterSlots | undefined,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<CallOutcome> {
  if (!options.span?.recording) return send(entry, clusterSlots, tool, args, options);
  const span = tracing().upstreamCall(options.span, {
    server: entry.config.name,
    tool,
    protocolVersion: entry.connection.protocolVersion,
    transport: entry.config.protocol === 'stdio' ? 'pipe' : 'tcp',
  });
  const outcome = await tracing().within(span, () =>
    send(entry, clusterSlots, tool, args, { ...options, span }),
  );
  span.end(outcome.ok ? (outcome.result.isError === true ? TOOL_ERROR : undefined) : outcome.code);
  return outcome;
}

async function send(
  entry: Entry,
  clusterSlots: ClusterSlots | undefined,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<CallOutcome> {
  const server = entry.config.name;
  const release = entry.limiter.tryAcquire() ?? (await entry.limiter.acquire(options.signal));
  if (!release) {
    if (options.signal?.aborted) return cancelled(server, tool);
    return {
      ok: false,
      code: 'QUEUE_FULL',
      message: `server '${server}' already has ${entry.config.maxConcurrentRequests} calls in flight (max_concurrent_requests) and ${entry.config.queueSize} waiting (queue_size)`,
    };
  }
  const cluster =
    entry.config.clusterMaxConcurrentRequests === undefined || !clusterSlots
      ? NO_CLUSTER_LIMIT
      : await clusterSlot(entry.config, clusterSlots, options.signal);
  if (!cluster.ok) {
    release();
    if (cluster.reason === 'aborted' || options.signal?.aborted) return cancelled(server, tool);
    return {
      ok: false,
      code: cluster.reason === 'queue_full' ? 'QUEUE_FULL' : 'SERVER_UNAVAILABLE',
      message: cluster.message,
    };
  }
  // The execution may have ended while this call waited to start: then it is never sent.
  if (options.signal?.aborted) {
    cluster.release();
    release();
    return cancelled(server, tool);
  }
  const timeoutMs = minDefined(entry.config.callTimeoutMs, options.timeoutMs);
  try {
    const result = await entry.connection.callTool(tool, args, {
      signal: options.signal,
      timeoutMs,
      span: options.span,
      ...(options.askInput ? { askInput: options.askInput } : {}),
    });
    // The one place a result comes back: every surface (envelope, activity, REST, MCP) gets it masked.
    return { ok: true, result: maskResult(result, entry.journal.secrets) };
  } catch (error) {
    if (entry.needsAuth !== undefined) {
      return { ok: false, code: 'SERVER_UNAVAILABLE', message: waitingMessage(entry) };
    }
    return failedCall(error, {
      server,
      tool,
      timeoutMs,
      aborted: options.signal?.aborted === true,
      connected: entry.connection.connected,
      dropReason: entry.dropReason,
      secrets: entry.journal.secrets,
    });
  } finally {
    cluster.release();
    release();
  }
}
