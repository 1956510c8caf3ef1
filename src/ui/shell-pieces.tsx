/** @module Pieces the pages' shells share: a table a page's script fills in, a chart, a dialog's buttons, the trail above a title. */

/**
 * A table whose rows the page's script fills in (its tbody has the id `body`). `hidden` names
 * a last column for screen readers only (the rows' buttons: "Actions", "Decision").
 */
export function RowsTable({
  label,
  columns,
  body,
  hidden,
  class: className,
}: {
  label: string;
  columns: string[];
  body: string;
  hidden?: string;
  class?: string;
}) {
  return (
    <table aria-label={label} class={className}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col">{column}</th>
          ))}
          {hidden && (
            <th scope="col">
              <span class="visually-hidden">{hidden}</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody id={body} />
    </table>
  );
}

/** A dialog form's buttons: its submit button (`submitId` when the script renames it) and Cancel. */
export function DialogActions({ submit, submitId }: { submit: string; submitId?: string }) {
  return (
    <div class="actions">
      <button type="submit" id={submitId}>
        {submit}
      </button>
      <button type="button" class="secondary" data-close>
        Cancel
      </button>
    </div>
  );
}

/** The trail above a detail page's title: each link, then " /". */
export function Crumb({ links }: { links: Array<{ href: string; label: string }> }) {
  return (
    <p class="crumb">
      {links.map(({ href, label }, i) => (
        <>
          {i > 0 && ' '}
          <a href={href}>{label}</a> /
        </>
      ))}
    </p>
  );
}

/**
 * A chart: a figure named by its caption; the canvas is an image named by the script (what it
 * shows, in a sentence), and the same numbers are a table for screen readers.
 */
export function ChartFigure({ id, caption }: { id: string; caption: string }) {
  return (
    <figure class="chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{caption}</figcaption>
      <div class="chart-box">
        <canvas id={`${id}-chart`} role="img" aria-label={caption} />
      </div>
      <table id={`${id}-table`} class="visually-hidden" aria-label={`${caption} (data)`} />
    </figure>
  );
}
