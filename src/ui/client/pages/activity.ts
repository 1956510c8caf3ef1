/** @module Activity: the history page by page (GET /api/v1/activity), filters kept in the URL, live rows from the SSE stream; one record's detail. */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say, when } from '../dom.ts';
import { outputBlock } from '../output.ts';
import { ms } from '../run-result.ts';
import { drawWaterfall } from '../waterfall.ts';

interface ActivityRecord {
  id: string;
  parent_id: string | null;
  kind: string;
  surface: string;
  caller: string;
  server: string | null;
  tool: string | null;
  status: string;
  started_at: string;
  duration_ms: number;
  children?: ActivityRecord[];
  [field: string]: unknown;
}

const PAGE_SIZE = 50;

const target = (r: ActivityRecord) =>
  [r.server, r.tool].filter(Boolean).join('.') || (r.kind === 'execution' ? 'code' : '');

function row(r: ActivityRecord, withContext = true, nested = false): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-id': r.id, ...(nested ? { class: 'call', 'data-parent': r.parent_id ?? '' } : {}) },
    h('td', {}, h('a', { href: `/ui/activity/${seg(r.id)}` }, when(r.started_at))),
    ...(withContext ? [h('td', {}, r.kind), h('td', {}, r.surface), h('td', {}, r.caller)] : []),
    h('td', {}, nested ? `↳ ${target(r)}` : target(r)),
    h(
      'td',
      {},
      badge(r.status),
      ...(r.dry_run ? [' ', h('span', { class: 'tag' }, 'dry run')] : []),
    ),
    h('td', { class: 'num' }, ms(r.duration_ms)),
  );
}

/**
 * A page's records with each execution's calls right under it (newest first otherwise): a
 * call is newer than its execution, so the list has it above; here it moves below, marked.
 */
function nestedRows(items: ActivityRecord[]): HTMLTableRowElement[] {
  const onPage = new Set(items.filter((r) => r.kind === 'execution').map((r) => r.id));
  const calls = new Map<string, ActivityRecord[]>();
  for (const r of items) {
    if (!r.parent_id || !onPage.has(r.parent_id)) continue;
    const list = calls.get(r.parent_id) ?? [];
    if (list.length === 0) calls.set(r.parent_id, list);
    list.push(r);
  }
  const rows: HTMLTableRowElement[] = [];
  for (const r of items) {
    if (r.parent_id && onPage.has(r.parent_id)) continue;
    rows.push(row(r));
    // Calls in the order they were made (their ids grow).
    for (const call of (calls.get(r.id) ?? []).reverse()) rows.push(row(call, true, true));
  }
  return rows;
}

/** The list's filters, as the REST list and the page's URL both name them. */
const FILTERS = ['status', 'surface', 'server', 'tool', 'caller', 'since', 'until', 'search'];

/** Whether a live record belongs on the first page of the current filters (the server decides the rest). */
function liveMatch(r: ActivityRecord, f: URLSearchParams): boolean {
  for (const key of ['status', 'surface', 'server', 'tool', 'caller'] as const) {
    const wanted = f.get(key);
    if (wanted && r[key] !== wanted) return false;
  }
  // A time range or a search is judged by the server: a live record is not guessed at.
  return !f.get('since') && !f.get('until') && !f.get('search');
}

/**
 * A Since / Until as the person means it: without a zone (`2026-12-04T20:00`, `2026-12-04`) it
 * is their local time, as the list shows times; with one (`Z`, `+01:00`) it stays as written.
 */
function instant(value: string): string {
  if (/(Z|[+-]\d\d:?\d\d)$/i.test(value)) return value;
  const local = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00` : value);
  return Number.isNaN(local.getTime()) ? value : local.toISOString();
}

export async function activityPage(): Promise<void> {
  const rows = byId('rows');
  const form = byId<HTMLFormElement>('filters');
  const previous = byId<HTMLButtonElement>('previous');
  const next = byId<HTMLButtonElement>('next');
  // The filters and the page live in the URL, so a view can be shared and reloaded.
  const fromUrl = () => new URLSearchParams(location.search);
  for (const [key, value] of fromUrl()) {
    const field = form.elements.namedItem(key);
    if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement)
      field.value = value;
  }
  const filters = () => {
    const data = new FormData(form);
    const f = new URLSearchParams();
    for (const key of FILTERS) {
      const value = String(data.get(key) ?? '').trim();
      if (value) f.set(key, value);
    }
    return f;
  };
  let offset = Number(fromUrl().get('offset') ?? 0) || 0;
  // The list's total, kept as live records arrive.
  let total = 0;
  const sayTotal = () => say(`${total} ${total === 1 ? 'record' : 'records'}.`);
  const showPages = (shown: number) => {
    byId('page-info').textContent =
      shown > 0
        ? `${offset + 1}-${offset + shown} of ${total}`
        : offset > 0 && total > 0
          ? `past the last record (${total}): use Previous`
          : '';
    previous.disabled = offset === 0;
    next.disabled = offset + shown >= total;
  };
  const load = async () => {
    const f = filters();
    const shared = new URLSearchParams(f);
    if (offset > 0) shared.set('offset', String(offset));
    history.replaceState(null, '', `${location.pathname}${shared.size ? `?${shared}` : ''}`);
    const query = new URLSearchParams(f);
    for (const key of ['since', 'until']) {
      const value = f.get(key);
      if (value) query.set(key, instant(value));
    }
    query.set('limit', String(PAGE_SIZE));
    query.set('offset', String(offset));
    const answer = await api('GET', `/activity?${query}`);
    if (answer.status !== 200) return say(errorText(answer), true);
    const items = answer.json.items as ActivityRecord[];
    fillRows(rows, nestedRows(items), 'No records match.');
    total = answer.json.total as number;
    sayTotal();
    showPages(items.length);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    offset = 0;
    void load();
  });
  previous.addEventListener('click', () => {
    offset = Math.max(0, offset - PAGE_SIZE);
    void load();
  });
  next.addEventListener('click', () => {
    offset += PAGE_SIZE;
    void load();
  });
  await load();

  // Live: each record written arrives as an `activity` event; new ones go on top of page one.
  const stream = new EventSource('/api/v1/activity/stream');
  stream.addEventListener('activity', (event) => {
    const record = JSON.parse((event as MessageEvent<string>).data) as ActivityRecord;
    if (offset > 0 || !liveMatch(record, filters())) return;
    if (rows.querySelector(`tr[data-id="${CSS.escape(record.id)}"]`)) return;
    rows.querySelector('td.empty')?.parentElement?.remove();
    const parent =
      record.parent_id && rows.querySelector(`tr[data-id="${CSS.escape(record.parent_id)}"]`);
    if (parent) {
      // After the execution's last call on the page.
      let last: Element = parent;
      while (last.nextElementSibling?.getAttribute('data-parent') === record.parent_id)
        last = last.nextElementSibling;
      last.after(row(record, true, true));
    } else rows.prepend(row(record));
    while (rows.children.length > PAGE_SIZE) rows.lastElementChild?.remove();
    total++;
    sayTotal();
    showPages(rows.children.length);
  });
  stream.addEventListener('error', () => {
    byId('live').textContent = 'Live updates paused; reconnecting…';
  });
  stream.addEventListener('ready', () => {
    byId('live').textContent = 'Live: new records appear here as they are written.';
  });
}

/** A record field as its page shows it: a status as its badge, a time as the list shows it. */
function shownValue(key: string, value: unknown): HTMLElement | string {
  if (key === 'status') return badge(String(value));
  // The stored ISO instant stays in the Record JSON below; here, the list's local time.
  if (key.endsWith('_at')) return h('time', { datetime: String(value) }, when(String(value)));
  return String(value);
}

export async function activityRecordPage(main: HTMLElement): Promise<void> {
  const id = main.dataset.id ?? '';
  const answer = await api('GET', `/activity/${seg(id)}`);
  if (answer.status !== 200) return say(errorText(answer), true);
  const record = answer.json as ActivityRecord;
  const fields = byId('fields');
  if (record.kind === 'execution' && typeof record.code === 'string') {
    fields.before(
      h(
        'p',
        {},
        h(
          'a',
          { class: 'button', href: `/ui/playground?from=${encodeURIComponent(record.id)}` },
          'Re-run in Playground',
        ),
      ),
    );
  }
  const shown = [
    'kind',
    'status',
    'dry_run',
    'surface',
    'caller',
    'server',
    'tool',
    'script',
    'language',
    'started_at',
    'duration_ms',
  ];
  for (const key of shown) {
    const value = record[key];
    if (value === null || value === undefined) continue;
    fields.append(h('dt', {}, key), h('dd', {}, shownValue(key, value)));
  }
  if (record.parent_id)
    fields.append(
      h('dt', {}, 'parent'),
      h('dd', {}, h('a', { href: `/ui/activity/${seg(record.parent_id)}` }, record.parent_id)),
    );
  if (record.error)
    fields.append(h('dt', {}, 'error'), h('dd', { class: 'error' }, outputBlock(record.error)));
  for (const key of ['code', 'input', 'args', 'response', 'logs']) {
    const value = record[key];
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0))
      continue;
    fields.append(
      h('dt', {}, key),
      h('dd', {}, outputBlock(key === 'logs' ? (value as string[]).join('\n') : value, key)),
    );
  }
  fillRows(
    byId('rows'),
    (record.children ?? []).map((r) => row(r, false)),
    'No upstream calls.',
  );
  if (record.kind === 'execution') drawWaterfall(record, record.children ?? []);
  byId('json').replaceWith(outputBlock(record, 'Record JSON'));
}
