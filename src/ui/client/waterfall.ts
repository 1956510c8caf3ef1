/**
 * @module An execution's calls as a waterfall: a floating bar per call from its start to its
 * end, in milliseconds since the execution started, under a bar for the execution itself.
 */
import { barChart, STATUS_COLOURS } from './charts.ts';
import { byId } from './dom.ts';
import { ms } from './run-result.ts';

/** What the waterfall reads of a record (GET /api/v1/activity/{id}). */
export interface TimedRecord {
  server: string | null;
  tool: string | null;
  status: string;
  started_at: string;
  duration_ms: number;
  /** Kept since issue 39: the call's start on the execution's axis (monotonic clock). */
  offset_ms?: number;
}

/** One bar's height, and the room the axis and legend take, in CSS pixels. */
const ROW_PX = 26;
const FRAME_PX = 70;
const EXECUTION_COLOUR = '#9aa0a6';

/** A call's span on the execution's axis: its offset when kept, else from the start times (to the ms). */
export function callSpan(execution: TimedRecord, call: TimedRecord): [number, number] {
  const start =
    call.offset_ms ?? Math.max(0, Date.parse(call.started_at) - Date.parse(execution.started_at));
  return [start, start + call.duration_ms];
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Draws the waterfall of `execution`'s `calls` in the figure `calls` and shows its section. */
export function drawWaterfall(execution: TimedRecord, calls: TimedRecord[]): void {
  const section = byId('waterfall');
  if (calls.length === 0) return;
  section.hidden = false;
  const names = calls.map((c, i) => `#${i + 1} ${c.server ?? ''}.${c.tool ?? ''}`);
  const spans = calls.map((c) => callSpan(execution, c));
  const end = Math.max(execution.duration_ms, ...spans.map(([, to]) => to));
  const canvas = byId<HTMLCanvasElement>('calls-chart');
  // The box grows with the calls, so every bar keeps its height.
  const box = canvas.parentElement!;
  box.style.height = `${FRAME_PX + ROW_PX * (calls.length + 1)}px`;
  const summary = `Waterfall of ${calls.length} ${calls.length === 1 ? 'call' : 'calls'} over ${ms(end)}: ${calls
    .map((c, i) => `${names[i]} from ${ms(spans[i]![0])} to ${ms(spans[i]![1])}, ${c.status}`)
    .join('; ')}.`;
  barChart(
    canvas,
    {
      type: 'bar',
      data: {
        labels: ['execution', ...names],
        datasets: [
          {
            label: 'running',
            data: [[0, execution.duration_ms], ...spans],
            backgroundColor: [
              EXECUTION_COLOUR,
              ...calls.map((c) => STATUS_COLOURS[c.status] ?? '#888'),
            ],
            barPercentage: 0.8,
            categoryPercentage: 0.9,
            minBarLength: 2,
          },
        ],
      },
      options: {
        indexAxis: 'y',
        scales: {
          x: {
            type: 'linear',
            min: 0,
            max: end,
            title: { display: true, text: 'ms since the execution started' },
          },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: (item) => {
                const [from, to] = item.raw as [number, number];
                return `${ms(from)} → ${ms(to)} (${ms(to - from)})`;
              },
            },
          },
        },
      },
    },
    summary,
    {
      element: byId<HTMLTableElement>('calls-table'),
      head: ['Call', 'Start (ms)', 'End (ms)', 'Duration (ms)', 'Status'],
      rows: calls.map((c, i) => [
        names[i]!,
        round(spans[i]![0]),
        round(spans[i]![1]),
        round(c.duration_ms),
        c.status,
      ]),
    },
  );
}
