/** @module The upstream servers a caller may use, with their tools, as code_execution's description lists them. */
import type { Caller, Runtime } from '../execution/index.ts';
import type { ServerSummary } from './code-execution-tool.ts';

/**
 * A server's tools as the description lists them: a tool held by pinning is named as held,
 * with the description that was approved (a changed one) or none (a new one), so a changed
 * description never reaches the model before someone approved it.
 */
function shownTools(runtime: Runtime, server: string): ServerSummary['tools'] {
  return runtime.registry.tools(server).map((t) => {
    const held = runtime.pins.holdOf(server, t);
    if (!held) return t;
    const approved = held.before?.description;
    return {
      name: t.name,
      description: `(held until an administrator approves it)${approved ? ` ${approved}` : ''}`,
    };
  });
}

/** The servers `caller` may use, with their tools, as the description lists them. */
export function visibleServers(runtime: Runtime, caller: Caller): ServerSummary[] {
  const scope = caller.kind === 'agent' ? new Set(caller.servers) : undefined;
  return runtime.registry
    .status()
    .filter(
      (s) => s.state !== 'disabled' && s.state !== 'quarantined' && (!scope || scope.has(s.name)),
    )
    .map((s) => ({
      name: s.name,
      tools: shownTools(runtime, s.name),
      state: s.state as ServerSummary['state'],
      // A failure's text can carry host paths and stderr: only the admin reads it.
      ...(caller.kind === 'admin' && s.last_error ? { reason: s.last_error } : {}),
    }));
}
