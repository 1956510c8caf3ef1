/**
 * @module Upstream log notifications forwarded to one MCP client: only from servers its caller
 * may use, and at the level the client set with `logging/setLevel` (the SDK filters per session).
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

/** Forwards `runtime`'s upstream logs to `server` until it closes. */
export function forwardUpstreamLogs(server: LogTarget, runtime: Runtime, caller: Caller): void {
  const scope = caller.kind === 'agent' ? new Set(caller.servers) : undefined;
  const onLog = (name: string, message: UpstreamLog) => {
    if (scope && !scope.has(name)) return;
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
