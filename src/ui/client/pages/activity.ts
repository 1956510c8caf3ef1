/** @module Activity: newest records (GET /api/v1/activity), filters, live rows from the SSE stream; one record's detail. */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say, when } from '../dom.ts';
import { outputBlock } from '../output.ts';
import { ms } from './playground.ts';

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

function row(r: ActivityRecord, withContext = true): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-id': r.id },
    h('td', {}, h('a', { href: `/ui/activity/${seg(r.id)}` }, when(r.started_at))),
    ...(withContext ? [h('td', {}, r.kind), h('td', {}, r.surface), h('td', {}, r.caller)] : []),
    h('td', {}, target(r)),
    h('td', {}, badge(r.status)),
    h('td', { class: 'num' }, ms(r.duration_ms)),
  );
}

export async function activityPage(): Promise<void> {
  const rows = byId('rows');
  const form = byId<HTMLFormElement>('filters');
  const filters = () => {
    const data = new FormData(form);
    return {
      status: String(data.get('status') ?? ''),
      server: String(data.get('server') ?? '').trim(),
    };
  };
  const matches = (r: ActivityRecord) => {
    const f = filters();
    return (!f.status || r.status === f.status) && (!f.server || r.server === f.server);
  };
  // The list's total, kept as live records arrive.
  let total = 0;
  const sayTotal = () => say(`${total} ${total === 1 ? 'record' : 'records'}.`);
  const load = async () => {
    const f = filters();
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (f.status) query.set('status', f.status);
    if (f.server) query.set('server', f.server);
    const answer = await api('GET', `/activity?${query}`);
    if (answer.status !== 200) return say(errorText(answer), true);
    fillRows(
      rows,
      (answer.json.items as ActivityRecord[]).map((r) => row(r)),
      'No records match.',
    );
    total = answer.json.total as number;
    sayTotal();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  await load();

  // Live: each record written arrives as an `activity` event; new ones go on top.
  const stream = new EventSource('/api/v1/activity/stream');
  stream.addEventListener('activity', (event) => {
    const record = JSON.parse((event as MessageEvent<string>).data) as ActivityRecord;
    if (!matches(record) || rows.querySelector(`tr[data-id="${CSS.escape(record.id)}"]`)) return;
    rows.querySelector('td.empty')?.parentElement?.remove();
    rows.prepend(row(record));
    while (rows.children.length > PAGE_SIZE) rows.lastElementChild?.remove();
    total++;
    sayTotal();
  });
  stream.addEventListener('error', () => {
    byId('live').textContent = 'Live updates paused; reconnecting…';
  });
  stream.addEventListener('ready', () => {
    byId('live').textContent = 'Live: new records appear here as they are written.';
  });
}

export async function activityRecordPage(main: HTMLElement): Promise<void> {
  const id = main.dataset.id ?? '';
  const answer = await api('GET', `/activity/${seg(id)}`);
  if (answer.status !== 200) return say(errorText(answer), true);
  const record = answer.json as ActivityRecord;
  const fields = byId('fields');
  const shown = [
    'kind',
    'status',
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
    fields.append(
      h('dt', {}, key),
      h('dd', {}, key === 'status' ? badge(String(value)) : String(value)),
    );
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
  byId('json').replaceWith(outputBlock(record, 'Record JSON'));
}
