/**
 * @module Upstream log notifications forwarded to one MCP client: only from servers its caller
 * may use, at the level the client set with `logging/setLevel` (a 2025 session, filtered by the
 * SDK) or named in the request's `_meta` (a 2026-07-28 request, for as long as it runs).
 */
import type { Caller, Runtime } from '../execution/index.ts';
import type { UpstreamLog } from '../upstream/index.ts';

/** What a log line is sent through: a server of either SDK. */
export interface LogTarget {
  transport?: { sessionId?: string };
  onclose?: () => void;
  sendLoggingMessage(
    params: { level: UpstreamLog['level']; logger?: string; data: unknown },
    sessionId?: string,
  ): Promise<void>;
}

/** Whether a line from upstream `name` may reach `caller` (an agent token: its servers only). */
function inScope(caller: Caller): (name: string) => boolean {
  if (caller.kind !== 'agent') return () => true;
  const scope = new Set(caller.servers);
  return (name) => scope.has(name);
}

/**
 * Forwards `runtime`'s upstream logs on one 2026-07-28 request while `during` runs: that
 * revision has no session to send them on, and the request names its level (`_meta` logLevel;
 * none: nothing is sent, which `log` applies).
 */
export async function forwardLogsDuring<T>(
  runtime: Runtime,
  caller: Caller,
  log: (level: UpstreamLog['level'], data: unknown, logger: string) => Promise<void>,
  during: () => Promise<T>,
): Promise<T> {
  const allowed = inScope(caller);
  const onLog = (name: string, message: UpstreamLog) => {
    if (allowed(name)) log(message.level, message.data, message.logger ?? name).catch(() => {});
  };
  runtime.registry.on('log', onLog);
  try {
    return await during();
  } finally {
    runtime.registry.off('log', onLog);
  }
}

/** Forwards `runtime`'s upstream logs to `server` until it closes. */
export function forwardUpstreamLogs(server: LogTarget, runtime: Runtime, caller: Caller): void {
  const allowed = inScope(caller);
  const onLog = (name: string, message: UpstreamLog) => {
    if (!allowed(name)) return;
    // Not connected yet, or already closed: nothing to send to.
    if (!server.transport) return;
    server
      .sendLoggingMessage(
        { level: message.level, logger: message.logger ?? name, data: message.data },
        server.transport.sessionId,
      )
      .catch(() => {});
  };
  runtime.registry.on('log', onLog);
  const previous = server.onclose;
  server.onclose = () => {
    runtime.registry.off('log', onLog);
    previous?.();
  };
}
