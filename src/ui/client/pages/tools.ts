/**
 * @module Tools: every tool of every usable server (GET /api/v1/tools), searched with the
 * catalog's BM25 index when the URL has `?q=`; each tool links its own page.
 */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say } from '../dom.ts';
import { annotationsCell } from './servers.ts';

interface ToolItem {
  server: string;
  tool: string;
  description: string;
  annotations?: Record<string, unknown>;
  held?: boolean;
}

/** Rows one page shows (the route's most): a search narrows a longer list. */
const TOOLS_SHOWN = 200;

export async function toolsPage(): Promise<void> {
  const q = (new URLSearchParams(location.search).get('q') ?? '').trim();
  byId<HTMLInputElement>('q').value = q;
  const query = q ? `&query=${encodeURIComponent(q)}` : '';
  const answer = await api('GET', `/tools?limit=${TOOLS_SHOWN}${query}`);
  if (answer.status !== 200) return say(errorText(answer), true);
  const items = answer.json.items as ToolItem[];
  fillRows(
    byId('rows'),
    items.map((t) =>
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: `/ui/servers/${seg(t.server)}` }, t.server)),
        h(
          'th',
          { scope: 'row' },
          h('a', { href: `/ui/tools/${seg(t.server)}/${seg(t.tool)}` }, t.tool),
          t.held ? ' ' : '',
          t.held ? badge('held') : '',
        ),
        h('td', {}, t.description),
        annotationsCell(t.annotations),
      ),
    ),
    q ? `No tool matches "${q}".` : 'No tools: no server is connected yet.',
  );
  const more = answer.json.has_more ? `; only the first ${TOOLS_SHOWN} are shown` : '';
  const count = `${items.length} tool${items.length === 1 ? '' : 's'}`;
  say(q ? `${count} match "${q}", best match first${more}` : `${count}${more}`);
}
