/** @module A table whose rows a page's script fills in, named for screen readers by its label. */

/** A table whose rows the page's script fills in (its tbody has the id `body`). */
export function RowsTable({
  label,
  columns,
  body,
}: {
  label: string;
  columns: string[];
  body: string;
}) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col">{column}</th>
          ))}
        </tr>
      </thead>
      <tbody id={body} />
    </table>
  );
}
