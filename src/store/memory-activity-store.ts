/**
 * @module Activity history kept in memory, as the databases keep it (records copied in and out,
 * the same filters, order and aggregates): the contract's reference beside SQLite and PostgreSQL.
 */
import type {
  ActivityOverview,
  ActivityQuery,
  ActivityRecord,
  ActivityStore,
  FailingTool,
  HourTally,
  OverviewWindow,
  ServerLatency,
} from './activity-store.ts';

type Stored = ActivityRecord & { seq: number };

const FILTERED = ['kind', 'status', 'server', 'parent_id', 'caller', 'surface', 'tool'] as const;

/** The text a search looks in, as the tables store it (code as it is, input and args as JSON). */
const searched = (r: Stored) =>
  [
    r.code ?? '',
    r.input == null ? '' : JSON.stringify(r.input),
    r.args == null ? '' : JSON.stringify(r.args),
  ].map((text) => text.toLowerCase());

function matches(r: Stored, query: ActivityQuery): boolean {
  for (const key of FILTERED) if (query[key] !== undefined && r[key] !== query[key]) return false;
  const at = Date.parse(r.started_at);
  if (query.sinceMs !== undefined && !(at >= query.sinceMs)) return false;
  if (query.untilMs !== undefined && !(at < query.untilMs)) return false;
  if (query.search) {
    const text = query.search.toLowerCase();
    if (!searched(r).some((field) => field.includes(text))) return false;
  }
  return true;
}

/** `r` as a table gives it back: no `seq`, `approval_id` null when absent. */
function read({ seq: _seq, ...r }: Stored): ActivityRecord {
  return structuredClone({ ...r, approval_id: r.approval_id ?? null });
}

/** Nearest rank: the smallest value whose rank r (from 1) has r >= p% of n. */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil((sorted.length * p) / 100) - 1)] ?? 0;

const failed = (r: ActivityRecord) => r.status === 'tool_error' || r.status === 'error';

/** The aggregates the SQL of activity-overview-sql.ts computes, over records in memory. */
export function overviewOfRecords(
  records: Iterable<ActivityRecord>,
  window: OverviewWindow,
): ActivityOverview {
  const since = new Date(window.sinceMs).toISOString();
  const until = new Date(window.untilMs).toISOString();
  const tallies = new Map<string, HourTally>();
  const durations = new Map<string, number[]>();
  const tools = new Map<string, FailingTool>();
  for (const r of records) {
    if (r.started_at < since || r.started_at >= until) continue;
    if (r.kind === 'tool_call' && r.dry_run) continue;
    const hour = `${r.started_at.slice(0, 13)}:00:00.000Z`;
    const key = `${hour} ${r.kind} ${r.status}`;
    const tally = tallies.get(key) ?? { hour, kind: r.kind, status: r.status, count: 0 };
    tally.count++;
    tallies.set(key, tally);
    if (r.kind !== 'tool_call' || r.server === null) continue;
    if (r.status !== 'blocked' && r.status !== 'rejected') {
      const list = durations.get(r.server) ?? [];
      list.push(r.duration_ms);
      durations.set(r.server, list);
    }
    if (r.tool === null) continue;
    const toolKey = JSON.stringify([r.server, r.tool]);
    const tool = tools.get(toolKey) ?? { server: r.server, tool: r.tool, failures: 0, calls: 0 };
    tool.calls++;
    if (failed(r)) tool.failures++;
    tools.set(toolKey, tool);
  }
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const hours = [...tallies.values()].sort(
    (a, b) => byText(a.hour, b.hour) || byText(a.kind, b.kind) || byText(a.status, b.status),
  );
  const latency: ServerLatency[] = [...durations.entries()]
    .sort(([a], [b]) => byText(a, b))
    .map(([server, values]) => {
      const sorted = values.sort((a, b) => a - b);
      return {
        server,
        calls: sorted.length,
        p50_ms: percentile(sorted, 50),
        p95_ms: percentile(sorted, 95),
      };
    });
  const failing = [...tools.values()]
    .filter((t) => t.failures > 0)
    .sort((a, b) => b.failures - a.failures || byText(a.server, b.server) || byText(a.tool, b.tool))
    .slice(0, window.failingLimit);
  return { hours, latency, failing };
}

/** An activity store in this process (it lasts as long as the process). */
export function memoryActivityStore(): ActivityStore {
  const records = new Map<string, Stored>();
  return {
    async insert(batch) {
      for (const r of batch) if (!records.has(r.id)) records.set(r.id, structuredClone(r));
    },
    async list(query) {
      const found = [...records.values()]
        .filter((r) => matches(r, query))
        .sort((a, b) => (a.id < b.id ? 1 : -1));
      return {
        items: found.slice(query.offset, query.offset + query.limit).map(read),
        total: found.length,
      };
    },
    async get(id) {
      const r = records.get(id);
      return r && read(r);
    },
    async children(parentId) {
      return [...records.values()]
        .filter((r) => r.parent_id === parentId)
        .sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : 1))
        .map(read);
    },
    async overview(window) {
      return overviewOfRecords(records.values(), window);
    },
    async trim(before, maxRecords) {
      let removed = 0;
      for (const [id, r] of records) {
        if (r.started_at < before) {
          records.delete(id);
          removed++;
        }
      }
      const oldest = [...records.keys()].sort();
      for (const id of oldest.slice(0, Math.max(0, oldest.length - maxRecords))) {
        records.delete(id);
        removed++;
      }
      return removed;
    },
    async close() {},
  };
}
