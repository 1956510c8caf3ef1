/** @module DOM helpers: elements built from data with textContent only (never HTML from data). */

type Attrs = Record<string, string | boolean | number | undefined | EventListener>;
export type Kid = Node | string | number | null | undefined | false;

/** Creates an element; `on*` attributes become listeners, booleans toggle attributes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Kid[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Element, children: Kid[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/** The element with `id`; the page's markup guarantees it. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** Replaces a table body's rows; an empty list shows `empty` across the table. */
export function fillRows(body: HTMLElement, rows: HTMLTableRowElement[], empty: string): void {
  const columns = body.closest('table')?.querySelectorAll('thead th').length ?? 1;
  body.replaceChildren(
    ...(rows.length > 0
      ? rows
      : [h('tr', {}, h('td', { colspan: columns, class: 'empty' }, empty))]),
  );
}

/** The page's polite status line (or the status element `id`); errors in the error colour. */
export function say(message: string, error = false, id = 'status'): void {
  const status = byId(id);
  status.textContent = message;
  status.classList.toggle('error', error);
}

/** A stored instant as every page shows it: the reader's local time, with the zone named. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { timeZoneName: 'short' });
}

/** A state or status word, coloured by its class. */
export function badge(word: string): HTMLElement {
  return h('span', { class: `badge s-${word.replace(/[^a-z_]/gi, '')}` }, word);
}
