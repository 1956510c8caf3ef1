/** @module Servers: a row per upstream (GET /api/v1/servers), and one server's tools. */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say } from '../dom.ts';
import { outputBlock } from '../output.ts';

interface ServerRow {
  name: string;
  state: string;
  protocol: string;
  tools: number;
  last_error?: string;
}

export async function serversPage(): Promise<void> {
  const answer = await api('GET', '/servers');
  if (!answer.json.ok) return say(errorText(answer), true);
  const servers = answer.json.value.servers as ServerRow[];
  fillRows(
    byId('rows'),
    servers.map((s) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, h('a', { href: `/ui/servers/${seg(s.name)}` }, s.name)),
        h('td', {}, badge(s.state)),
        h('td', {}, s.protocol),
        h('td', { class: 'num' }, s.tools),
        h('td', { class: s.last_error ? 'error' : '' }, s.last_error ?? ''),
      ),
    ),
    'No servers in the config.',
  );
}

export async function serverPage(main: HTMLElement): Promise<void> {
  const name = main.dataset.name ?? '';
  const answer = await api('GET', `/servers/${seg(name)}/tools`);
  if (!answer.json.ok) return say(errorText(answer), true);
  const tools = answer.json.value.tools as Array<{
    name: string;
    description: string;
    input_schema: unknown;
  }>;
  fillRows(
    byId('rows'),
    tools.map((t) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, t.name),
        h('td', {}, t.description),
        h('td', {}, h('details', {}, h('summary', {}, 'Schema'), outputBlock(t.input_schema))),
      ),
    ),
    'This server lists no tools (it may not be connected).',
  );
}
