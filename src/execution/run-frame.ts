/** @module The frame of one run's answer: refusals before anything runs, elapsed time, the servers it may reach. */
import type { Caller, ErrorBody, ExecutionResult } from './types.ts';

/** A source that did not prepare, as an error at its position. */
export function positioned(
  code: string,
  failure: { message: string; line?: number; column?: number },
): ErrorBody {
  return { code, message: failure.message, line: failure.line, column: failure.column };
}

export function refusal(
  error: ErrorBody,
  started: number,
  diagnostics?: ExecutionResult['envelope']['diagnostics'],
): ExecutionResult {
  return {
    envelope: { ok: false, error, ...(diagnostics ? { diagnostics } : {}) },
    toolCalls: [],
    stats: { duration_ms: elapsed(started), tool_calls: 0 },
  };
}

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** allowed_servers (empty = all) intersected with an agent token's servers; undefined = no limit. */
export function reachableServers(
  allowed: readonly string[] | undefined,
  caller: Caller,
): ReadonlySet<string> | undefined {
  const requested = allowed && allowed.length > 0 ? new Set(allowed) : undefined;
  if (caller.kind === 'admin') return requested;
  const scope = new Set(caller.servers);
  return requested ? new Set([...requested].filter((s) => scope.has(s))) : scope;
}
