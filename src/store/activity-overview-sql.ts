/**
 * @module The Overview's aggregates as portable SQL (positional `?`; SQLite 3.25+ and
 * PostgreSQL alike: window functions, SUBSTR, integer arithmetic), and their rows as values.
 */
import type { ActivityOverview, OverviewWindow } from './activity-store.ts';

/** Records in the window, without dry-run calls (a stub answered them; nothing was sent). */
const IN_WINDOW = "started_at >= ? AND started_at < ? AND NOT (kind = 'tool_call' AND dry_run = 1)";
/** Calls of the window that were let out (a refusal before dispatch says nothing of the server). */
const CALLS_SENT = `kind = 'tool_call' AND ${IN_WINDOW} AND status NOT IN ('blocked', 'rejected')`;
const FAILED = "CASE WHEN status IN ('tool_error', 'error') THEN 1 ELSE 0 END";

export const HOURS_SQL = `SELECT SUBSTR(started_at, 1, 13) AS hour, kind, status, COUNT(*) AS n
  FROM activity WHERE ${IN_WINDOW}
  GROUP BY SUBSTR(started_at, 1, 13), kind, status
  ORDER BY hour, kind, status`;

// Nearest rank: the p-th percentile is the smallest value whose rank r has r >= p% of n.
export const LATENCY_SQL = `SELECT server, MAX(n) AS calls,
    MIN(CASE WHEN rn * 100 >= n * 50 THEN duration_ms END) AS p50,
    MIN(CASE WHEN rn * 100 >= n * 95 THEN duration_ms END) AS p95
  FROM (SELECT server, duration_ms,
      ROW_NUMBER() OVER (PARTITION BY server ORDER BY duration_ms) AS rn,
      COUNT(*) OVER (PARTITION BY server) AS n
    FROM activity WHERE ${CALLS_SENT} AND server IS NOT NULL) ranked
  GROUP BY server
  ORDER BY server`;

export const FAILING_SQL = `SELECT server, tool, SUM(${FAILED}) AS failures, COUNT(*) AS calls
  FROM activity WHERE kind = 'tool_call' AND ${IN_WINDOW} AND server IS NOT NULL AND tool IS NOT NULL
  GROUP BY server, tool
  HAVING SUM(${FAILED}) > 0
  ORDER BY failures DESC, server, tool
  LIMIT ?`;

/** The window's bounds as the records' own ISO text (text order is time order there). */
export const windowParams = (window: OverviewWindow): [string, string] => [
  new Date(window.sinceMs).toISOString(),
  new Date(window.untilMs).toISOString(),
];

type Cell = string | number | null;

/** The three queries' rows as the contract's overview (drivers answer counts as text or numbers). */
export function overviewOf(
  hours: Array<Record<string, Cell>>,
  latency: Array<Record<string, Cell>>,
  failing: Array<Record<string, Cell>>,
): ActivityOverview {
  return {
    hours: hours.map((r) => ({
      hour: `${String(r.hour)}:00:00.000Z`,
      kind: r.kind as ActivityOverview['hours'][number]['kind'],
      status: r.status as ActivityOverview['hours'][number]['status'],
      count: Number(r.n),
    })),
    latency: latency.map((r) => ({
      server: String(r.server),
      calls: Number(r.calls),
      p50_ms: Number(r.p50),
      p95_ms: Number(r.p95),
    })),
    failing: failing.map((r) => ({
      server: String(r.server),
      tool: String(r.tool),
      failures: Number(r.failures),
      calls: Number(r.calls),
    })),
  };
}
