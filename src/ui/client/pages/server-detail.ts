/**
 * @module One server's page, beside its tools: its state and actions, "Edit" (the config entry,
 * env and header values hidden), its state history, its last stderr lines, and a switch per
 * tool that writes the server's `disabled_tools` (GET /api/v1/servers/{name}, .../stderr,
 * POST .../tools/{tool}/disable|enable).
 */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say, when } from '../dom.ts';
import { followServer, serverButtons } from './server-actions.ts';
import { type Entry, sayWritten, serverForm } from './server-form.ts';

/** Reads the whole page again; answers the server's state (undefined when it is gone). */
type Reload = () => Promise<string | undefined>;

interface Detail {
  server: { name: string; state: string; protocol: string; tools: number; last_error?: string };
  entry: Entry | null;
  revision: string | null;
  file_error?: string;
  disabled_tools: string[];
  history: Array<{ at: string; event: string; detail?: string }>;
}

async function showStderr(name: string): Promise<void> {
  const answer = await api('GET', `/servers/${seg(name)}/stderr`);
  if (!answer.json.ok) return say(errorText(answer), true);
  const lines = answer.json.value.lines as string[];
  byId('stderr').textContent = lines.length > 0 ? lines.join('\n') : '(nothing written)';
}

/**
 * Shows the server's state, actions, history and stderr; `reload` reads the whole page again
 * (after an action). Answers the detail, or undefined when the server is gone (said).
 */
export async function showServerDetail(name: string, reload: Reload): Promise<Detail | undefined> {
  const answer = await api('GET', `/servers/${seg(name)}`);
  if (!answer.json.ok) {
    say(errorText(answer), true);
    return undefined;
  }
  const detail = answer.json.value as Detail;
  const { server } = detail;
  byId('server-state').replaceChildren(
    badge(server.state),
    ` ${server.protocol}, ${server.tools} tool${server.tools === 1 ? '' : 's'}`,
    server.last_error ? h('span', { class: 'error' }, ` · ${server.last_error}`) : '',
  );
  const after = async (done: string) => {
    if (done === 'deleted') window.location.assign('/ui/servers');
    else await followServer(reload);
  };
  byId('server-actions').replaceChildren(
    ...(detail.entry
      ? [
          h(
            'button',
            { type: 'button', onclick: () => editForm.open(detail.entry!, detail.revision) },
            'Edit',
          ),
        ]
      : []),
    ...serverButtons(name, server.state, after),
  );
  fillRows(
    byId('history-rows'),
    [...detail.history]
      .reverse()
      .map((e) =>
        h(
          'tr',
          {},
          h('td', {}, when(e.at)),
          h('td', {}, badge(e.event)),
          h('td', {}, e.detail ?? ''),
        ),
      ),
    'Nothing yet.',
  );
  await showStderr(name);
  if (detail.file_error) say(`Edit is unavailable: ${detail.file_error}`, true);
  return detail;
}

let editForm: ReturnType<typeof serverForm>;

/** Wires the page's fixed parts once: the edit dialog and the stderr's Refresh. */
export function setUpServerDetail(name: string, reload: Reload): void {
  editForm = serverForm(async (_name, answer, edit) => {
    await followServer(reload);
    sayWritten(name, answer, 'Saved', edit);
  });
  byId('stderr-refresh').addEventListener('click', () => void showStderr(name));
}

/** The switch that keeps tool `tool` in or out of the server's `disabled_tools`. */
export function toolSwitch(
  server: string,
  tool: string,
  disabled: boolean,
  reload: Reload,
  pinned: boolean,
): HTMLElement {
  const input = h('input', {
    type: 'checkbox',
    role: 'switch',
    'aria-label': `${tool} enabled`,
    checked: !disabled,
    onchange: async () => {
      input.setAttribute('disabled', '');
      const action = input.checked ? 'enable' : 'disable';
      const answer = await api('POST', `/servers/${seg(server)}/tools/${seg(tool)}/${action}`);
      input.removeAttribute('disabled');
      if (!answer.json.ok) {
        input.checked = !input.checked;
        return say(errorText(answer), true);
      }
      await reload();
      say(`${server}.${tool} ${action}d (disabled_tools in the config file)`);
    },
  });
  return h('td', { class: 'row-actions' }, input, pinned ? ' ' : '', pinned ? badge('pinned') : '');
}
