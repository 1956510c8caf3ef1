/**
 * @module Overview, the landing page: GET /api/v1/overview drawn as charts of the last 24
 * hours (executions and tool calls per hour by status, p50/p95 call duration per server, the
 * most failing tools), the servers that need someone and the approvals waiting.
 */
import { api, errorText, seg } from '../api.ts';
import { barChart, STATUS_COLOURS } from '../charts.ts';
import { badge, byId, fillRows, h, say, when } from '../dom.ts';
import { approvalAnchor } from '../pending-approvals.ts';
import { ms } from '../run-result.ts';

type Series = Record<string, number[]>;

interface Overview {
  since: string;
  until: string;
  hours: string[];
  activity: {
    executions: Series;
    tool_calls: Series;
    latency: Array<{ server: string; calls: number; p50_ms: number; p95_ms: number }>;
    failing_tools: Array<{ server: string; tool: string; failures: number; calls: number }>;
  } | null;
  servers: Array<{ name: string; state: string; reasons: string[]; last_error?: string }>;
  approvals: {
    pending: number;
    items: Array<{
      id: string;
      server: string;
      tool: string;
      caller: string;
      reason: string;
      created_at: string;
      expires_at: string;
    }>;
  };
}

/** An hour's start as a label: the reader's local time, hour and minute. */
const hourLabel = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

const canvas = (id: string) => byId<HTMLCanvasElement>(`${id}-chart`);
const table = (id: string) => byId<HTMLTableElement>(`${id}-table`);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Executions or tool calls per hour, a stacked bar per status that happened at all. */
function perHour(id: string, what: string, hours: string[], series: Series): void {
  const statuses = Object.keys(series).filter((s) => sum(series[s] ?? []) > 0);
  const total = sum(statuses.map((s) => sum(series[s]!)));
  const labels = hours.map(hourLabel);
  const summary =
    total === 0
      ? `${what} per hour, last 24 hours: none.`
      : `${what} per hour, last 24 hours: ${total} in all, ${statuses.map((s) => `${sum(series[s]!)} ${s}`).join(', ')}.`;
  barChart(
    canvas(id),
    {
      type: 'bar',
      data: {
        labels,
        datasets: statuses.map((status) => ({
          label: status,
          data: series[status]!,
          backgroundColor: STATUS_COLOURS[status] ?? '#888',
        })),
      },
      options: {
        scales: {
          x: { stacked: true, ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: 12 } },
          y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
        },
        plugins: { legend: { display: statuses.length > 0, position: 'bottom' } },
      },
    },
    summary,
    {
      element: table(id),
      head: ['Hour', ...statuses],
      rows: hours.map((hour, i) => [hourLabel(hour), ...statuses.map((s) => series[s]![i] ?? 0)]),
    },
  );
}

function latencyChart(latency: NonNullable<Overview['activity']>['latency']): void {
  const summary =
    latency.length === 0
      ? 'Call duration per server, last 24 hours: no calls.'
      : `Call duration per server, last 24 hours: ${latency.map((l) => `${l.server} p50 ${ms(l.p50_ms)}, p95 ${ms(l.p95_ms)} over ${l.calls} calls`).join('; ')}.`;
  barChart(
    canvas('latency'),
    {
      type: 'bar',
      data: {
        labels: latency.map((l) => l.server),
        datasets: [
          { label: 'p50 (ms)', data: latency.map((l) => l.p50_ms), backgroundColor: '#0b57d0' },
          { label: 'p95 (ms)', data: latency.map((l) => l.p95_ms), backgroundColor: '#93b4ef' },
        ],
      },
      options: {
        scales: { y: { beginAtZero: true, title: { display: true, text: 'ms' } } },
        plugins: { legend: { position: 'bottom' } },
      },
    },
    summary,
    {
      element: table('latency'),
      head: ['Server', 'Calls', 'p50', 'p95'],
      rows: latency.map((l) => [l.server, l.calls, ms(l.p50_ms), ms(l.p95_ms)]),
    },
  );
}

function failingChart(failing: NonNullable<Overview['activity']>['failing_tools']): void {
  const name = (t: { server: string; tool: string }) => `${t.server}.${t.tool}`;
  const summary =
    failing.length === 0
      ? 'Most failing tools, last 24 hours: no tool failed.'
      : `Most failing tools, last 24 hours: ${failing.map((t) => `${name(t)} ${t.failures} of ${t.calls} calls failed`).join('; ')}.`;
  barChart(
    canvas('failing'),
    {
      type: 'bar',
      data: {
        labels: failing.map(name),
        datasets: [
          {
            label: 'failed calls',
            data: failing.map((t) => t.failures),
            backgroundColor: STATUS_COLOURS.error,
          },
        ],
      },
      options: {
        indexAxis: 'y',
        scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
        plugins: { legend: { display: false } },
      },
    },
    summary,
    {
      element: table('failing'),
      head: ['Tool', 'Failed calls', 'Calls'],
      rows: failing.map((t) => [name(t), t.failures, t.calls]),
    },
  );
}

function attentionRows(servers: Overview['servers']): void {
  fillRows(
    byId('attention'),
    servers.map((s) =>
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: `/ui/servers/${seg(s.name)}` }, s.name)),
        h('td', {}, badge(s.state)),
        h('td', {}, s.reasons.join(', ')),
        h('td', { class: 'error' }, s.last_error ?? ''),
      ),
    ),
    'Every server is fine.',
  );
}

function approvalRows(approvals: Overview['approvals']): void {
  fillRows(
    byId('approvals'),
    approvals.items.map((a) =>
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: `/ui/approvals#${approvalAnchor(a.id)}` }, when(a.created_at))),
        h('td', {}, `${a.server}.${a.tool}`),
        h('td', {}, a.caller),
        h('td', {}, a.reason),
        h('td', {}, when(a.expires_at)),
      ),
    ),
    'No approval is waiting.',
  );
}

export async function overviewPage(): Promise<void> {
  const answer = await api('GET', '/overview');
  if (answer.status !== 200) return say(errorText(answer), true);
  const overview = answer.json.value as Overview;
  byId('window').textContent = `The last 24 hours: since ${when(overview.since)}.`;
  attentionRows(overview.servers);
  approvalRows(overview.approvals);
  const { activity } = overview;
  if (!activity) {
    byId('history-off').hidden = false;
    byId('charts').hidden = true;
    return;
  }
  perHour('executions', 'Executions', overview.hours, activity.executions);
  perHour('tool-calls', 'Tool calls', overview.hours, activity.tool_calls);
  latencyChart(activity.latency);
  failingChart(activity.failing_tools);
}
