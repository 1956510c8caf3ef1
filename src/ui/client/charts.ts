/**
 * @module Charts of the dashboard (Chart.js, bundled and served from this origin): only the
 * bar chart's parts are registered, nothing animates, and every chart has its numbers as a
 * table for screen readers beside the canvas (an image named by one sentence).
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';
import { h } from './dom.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.family =
  'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

/** A status's colour, as the badges draw it (app.css). */
export const STATUS_COLOURS: Record<string, string> = {
  success: '#1a7f37',
  tool_error: '#d97706',
  error: '#c62828',
  blocked: '#9a6700',
  rejected: '#6b7280',
};

/** Charts drawn on each canvas, so a canvas drawn again (the page refreshed) is not drawn twice. */
const drawn = new WeakMap<HTMLCanvasElement, Chart<'bar', unknown[], string>>();

/**
 * Draws a bar chart on `canvas`, names it `summary` (its accessible name) and writes its
 * numbers into `table` (`head`: the column names, then a row per label).
 */
export function barChart(
  canvas: HTMLCanvasElement,
  config: ChartConfiguration<'bar', unknown[], string>,
  summary: string,
  table: { element: HTMLTableElement; head: string[]; rows: Array<Array<string | number>> },
): Chart<'bar', unknown[], string> {
  drawn.get(canvas)?.destroy();
  const chart = new Chart(canvas, config);
  drawn.set(canvas, chart);
  canvas.setAttribute('aria-label', summary);
  dataTable(table.element, table.head, table.rows);
  return chart;
}

/** Fills a chart's table: a header row, then a row per label (the first cell its header). */
export function dataTable(
  table: HTMLTableElement,
  head: string[],
  rows: Array<Array<string | number>>,
): void {
  table.replaceChildren(
    h('thead', {}, h('tr', {}, ...head.map((cell) => h('th', { scope: 'col' }, cell)))),
    h(
      'tbody',
      {},
      ...rows.map(([first, ...rest]) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, String(first ?? '')),
          ...rest.map((cell) => h('td', {}, String(cell))),
        ),
      ),
    ),
  );
}
