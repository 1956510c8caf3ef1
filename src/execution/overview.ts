/**
 * @module The dashboard's Overview: the last 24 hours of the activity history as hourly series
 * (zeros filled in), call latencies and the most failing tools, beside the servers that need
 * someone and the approvals waiting for a decision.
 */
import {
  ACTIVITY_STATUSES,
  type ActivityOverview,
  type ActivityStatus,
  type FailingTool,
  type ServerLatency,
} from '../store/index.ts';
import type { ServerState } from '../upstream/index.ts';
import type { Runtime } from './runtime.ts';

/** Hours the charts cover, the current one included. */
export const OVERVIEW_HOURS = 24;
/** How many of the most failing tools the Overview lists. */
export const OVERVIEW_FAILING_TOOLS = 10;
/** Pending approvals the Overview lists (the Approvals page has them all). */
export const OVERVIEW_APPROVALS = 20;
const HOUR_MS = 3_600_000;

/** One count per hour of `Overview.hours`, for each status. */
export type HourlySeries = Record<ActivityStatus, number[]>;

/** A server someone should look at, and why. */
export interface AttentionServer {
  name: string;
  state: ServerState;
  /** Why it is listed, in words ("failed", "needs sign-in", "quarantined", "2 tools held by pinning"). */
  reasons: string[];
  last_error?: string;
  /** Its tools held by tool pinning until someone approves their new definitions. */
  held: number;
}

export interface PendingApprovalSummary {
  id: string;
  server: string;
  tool: string;
  caller: string;
  reason: string;
  activity_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface Overview {
  /** The window: from the start of the hour 23 hours ago to now (ISO 8601 UTC). */
  since: string;
  until: string;
  /** The start of each hour of the window, oldest first. */
  hours: string[];
  /** Null when the activity history is off on this gateway. */
  activity: {
    executions: HourlySeries;
    tool_calls: HourlySeries;
    latency: ServerLatency[];
    failing_tools: FailingTool[];
  } | null;
  servers: AttentionServer[];
  approvals: { pending: number; items: PendingApprovalSummary[] };
}

/** The hours of the window ending at `nowMs`: the current hour and the 23 before it. */
export function overviewHours(nowMs: number): string[] {
  const current = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  return Array.from({ length: OVERVIEW_HOURS }, (_, i) =>
    new Date(current - (OVERVIEW_HOURS - 1 - i) * HOUR_MS).toISOString(),
  );
}

/** The store's tallies as one series per status for `kind`, a zero where an hour had none. */
export function hourlySeries(
  tallies: ActivityOverview['hours'],
  hours: readonly string[],
  kind: 'execution' | 'tool_call',
): HourlySeries {
  const index = new Map(hours.map((hour, i) => [hour, i]));
  const series = Object.fromEntries(
    ACTIVITY_STATUSES.map((status) => [status, hours.map(() => 0)]),
  ) as HourlySeries;
  for (const tally of tallies) {
    const at = index.get(tally.hour);
    if (tally.kind === kind && at !== undefined) series[tally.status][at]! += tally.count;
  }
  return series;
}

/** The servers that need someone: failed, waiting for a sign-in, quarantined, or with held tools. */
export function attentionServers(runtime: Runtime): AttentionServer[] {
  const held = new Map<string, number>();
  for (const tool of runtime.pins.held()) held.set(tool.server, (held.get(tool.server) ?? 0) + 1);
  const out: AttentionServer[] = [];
  for (const status of runtime.registry.status()) {
    const reasons: string[] = [];
    if (status.state === 'failed') reasons.push('failed');
    if (status.state === 'needs_auth') reasons.push('needs sign-in');
    if (status.state === 'quarantined') reasons.push('quarantined');
    const heldCount = held.get(status.name) ?? 0;
    if (heldCount > 0) {
      reasons.push(`${heldCount} ${heldCount === 1 ? 'tool' : 'tools'} held by pinning`);
    }
    if (reasons.length === 0) continue;
    out.push({
      name: status.name,
      state: status.state,
      reasons,
      ...(status.last_error ? { last_error: status.last_error } : {}),
      held: heldCount,
    });
  }
  return out;
}

/** The Overview at `nowMs` (the admin's view: errors are shown whole). */
export async function overviewOf(runtime: Runtime, nowMs = Date.now()): Promise<Overview> {
  const hours = overviewHours(nowMs);
  const since = hours[0]!;
  const until = new Date(nowMs + 1).toISOString();
  const log = runtime.config().activity.enabled ? runtime.activity : undefined;
  const [aggregates, pending] = await Promise.all([
    log?.overview({
      sinceMs: Date.parse(since),
      untilMs: nowMs + 1,
      failingLimit: OVERVIEW_FAILING_TOOLS,
    }),
    runtime.approvals.list('pending'),
  ]);
  return {
    since,
    until,
    hours,
    activity: aggregates
      ? {
          executions: hourlySeries(aggregates.hours, hours, 'execution'),
          tool_calls: hourlySeries(aggregates.hours, hours, 'tool_call'),
          latency: aggregates.latency,
          failing_tools: aggregates.failing,
        }
      : null,
    servers: attentionServers(runtime),
    approvals: {
      pending: pending.length,
      items: pending.slice(0, OVERVIEW_APPROVALS).map((a) => ({
        id: a.id,
        server: a.server,
        tool: a.tool,
        caller: a.caller,
        reason: a.reason,
        activity_id: a.activity_id,
        created_at: a.created_at,
        expires_at: a.expires_at,
      })),
    },
  };
}
