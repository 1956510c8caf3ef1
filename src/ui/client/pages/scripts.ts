/** @module Scripts: the stored scripts listing (GET /api/v1/code/scripts), read only; a name opens its page. */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say } from '../dom.ts';

interface ScriptRow {
  name: string;
  paths: string[];
  status: string;
  reason?: string;
}

export async function scriptsPage(): Promise<void> {
  const answer = await api('GET', '/code/scripts');
  if (!answer.json.success) return say(errorText(answer), true);
  const listing = answer.json.data as { dir: string; scripts: ScriptRow[] };
  say(`Scripts directory: ${listing.dir}`);
  fillRows(
    byId('rows'),
    listing.scripts.map((s) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, h('a', { href: `/ui/scripts/${seg(s.name)}` }, s.name)),
        h('td', {}, badge(s.status)),
        h('td', {}, s.paths.join(', ')),
        h('td', { class: s.reason ? 'error' : '' }, s.reason ?? ''),
      ),
    ),
    'No stored scripts.',
  );
}
