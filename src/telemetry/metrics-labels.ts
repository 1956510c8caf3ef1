/**
 * @module The label values the metrics may carry, each from a fixed set or from the config and
 * the catalog: whatever a program or a request sends, the series stay bounded (anything else is
 * `other`). docs/observability.md lists them.
 */

/** A label value outside its set (an unknown server, a tool not in the catalog). */
export const OTHER = 'other';

/** Where an execution came from: the transport, not the tool (that is `dialect`). */
export const SURFACES = ['mcp', 'rest', 'cli', 'dashboard'] as const;
/** Which tool ran: `code_execution`, code mode's `execute`, or a code tool. */
export const DIALECTS = ['code_execution', 'execute', 'code_tool'] as const;
/** The activity history's statuses (an execution's and a tool call's). */
export const STATUSES = ['success', 'tool_error', 'error', 'blocked', 'rejected'] as const;
/** An upstream server's states (`GET /api/v1/servers`). */
export const UPSTREAM_STATES = [
  'idle',
  'connecting',
  'ready',
  'failed',
  'disabled',
  'quarantined',
  'needs_auth',
] as const;
/** How an approval ended. */
export const DECISIONS = ['approved', 'denied', 'expired'] as const;
/** Who decided an approval: a channel of `tool_policy.approval_channels`, or `none` (it expired). */
export const CHANNELS = ['elicitation', 'rest', 'dashboard', 'cli', 'none'] as const;
/** A sandbox worker: starting, idle, busy (running a program), held (its program waits: an approval, a yielded run). */
export const WORKER_STATES = ['starting', 'idle', 'busy', 'held'] as const;

export type WorkerState = (typeof WORKER_STATES)[number];

/** The activity history's surface -> the metrics' surface (code mode and code tools came over MCP). */
const SURFACE_OF: Record<string, string> = {
  mcp: 'mcp',
  codemode: 'mcp',
  code_tool: 'mcp',
  rest: 'rest',
  cli: 'cli',
  ui: 'dashboard',
};

/** The activity history's surface -> which tool ran. */
const DIALECT_OF: Record<string, string> = { codemode: 'execute', code_tool: 'code_tool' };

const STATUS_SET: ReadonlySet<string> = new Set(STATUSES);

/** `surface` of an execution recorded with activity surface `recorded`, which `via` overrides. */
export function surfaceLabel(recorded: string, via?: string): string {
  return SURFACE_OF[via ?? recorded] ?? OTHER;
}

/** `dialect` of an execution recorded with activity surface `recorded`. */
export function dialectLabel(recorded: string): string {
  return DIALECT_OF[recorded] ?? 'code_execution';
}

/** `status`: one of STATUSES, else `other`. */
export function statusLabel(status: string): string {
  return STATUS_SET.has(status) ? status : OTHER;
}

/** `channel` of an approval decided by `decidedBy` (its record's `decided_by`). */
export function channelLabel(decision: string, decidedBy: string): string {
  if (decision === 'expired') return 'none';
  if (decidedBy === 'admin') return 'rest';
  if (decidedBy === 'admin via dashboard') return 'dashboard';
  if (decidedBy === 'admin via cli' || decidedBy.startsWith('terminal')) return 'cli';
  // The standalone CLI's own refusals name `code exec`; an MCP client's answer names elicitation.
  if (decidedBy.startsWith('code exec')) return 'cli';
  if (decidedBy.includes('elicitation')) return 'elicitation';
  return OTHER;
}

/** `decision`: one of DECISIONS, else `other`. */
export function decisionLabel(decision: string): string {
  return (DECISIONS as readonly string[]).includes(decision) ? decision : OTHER;
}
