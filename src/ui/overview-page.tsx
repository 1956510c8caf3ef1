/**
 * @module The Overview page's shell (the dashboard's landing page): the last 24 hours as charts,
 * the servers that need someone, the approvals waiting; the client fills it from GET /api/v1/overview.
 */
import { ChartFigure, RowsTable } from './shell-pieces.tsx';

/** The charts, in order: the canvas id and the caption that names it. */
export const OVERVIEW_CHARTS = [
  ['executions', 'Executions per hour'],
  ['tool-calls', 'Tool calls per hour'],
  ['latency', 'Call duration per server (p50 and p95)'],
  ['failing', 'Most failing tools'],
] as const;

export function OverviewBody() {
  return (
    <>
      <h1>Overview</h1>
      <p class="hint" id="window">
        The last 24 hours.
      </p>
      <div class="attention">
        <section aria-labelledby="attention-title">
          <h2 id="attention-title">Servers needing attention</h2>
          <RowsTable
            label="Servers needing attention"
            columns={['Server', 'State', 'Why', 'Last error']}
            body="attention"
          />
        </section>
        <section aria-labelledby="approvals-title">
          <h2 id="approvals-title">Pending approvals</h2>
          <RowsTable
            label="Pending approvals"
            columns={['Requested', 'Server / tool', 'Caller', 'Reason', 'Expires']}
            body="approvals"
          />
        </section>
      </div>
      <section aria-labelledby="charts-title">
        <h2 id="charts-title">Last 24 hours</h2>
        <p class="notice" id="history-off" role="note" hidden>
          The activity history is off on this gateway (activity_enabled), so there is nothing to
          chart.
        </p>
        <div class="charts" id="charts">
          {OVERVIEW_CHARTS.map(([id, caption]) => (
            <ChartFigure id={id} caption={caption} />
          ))}
        </div>
      </section>
    </>
  );
}
