/** @module Code tools: the list and "New code tool" (POST /api/v1/code-tools). */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say, when } from '../dom.ts';

interface ToolRow {
  name: string;
  description: string;
  enabled: boolean;
  params: unknown[];
  updated_at: string;
}

/** Opens a <dialog>; its [data-close] buttons close it. */
export function dialogFor(id: string): HTMLDialogElement {
  const dialog = byId<HTMLDialogElement>(id);
  for (const button of dialog.querySelectorAll('[data-close]'))
    button.addEventListener('click', () => dialog.close());
  return dialog;
}

export async function codeToolsPage(): Promise<void> {
  const dialog = dialogFor('new-tool-dialog');
  const form = byId<HTMLFormElement>('new-tool-form');
  byId('new-tool').addEventListener('click', () => {
    form.reset();
    byId('new-tool-error').textContent = '';
    dialog.showModal();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const answer = await api('POST', '/code-tools', {
      name,
      description: String(data.get('description') ?? ''),
    });
    if (!answer.json.ok) {
      byId('new-tool-error').textContent = errorText(answer);
      return;
    }
    window.location.assign(`/ui/code-tools/${seg(name)}`);
  });

  const answer = await api('GET', '/code-tools');
  if (!answer.json.ok) return say(errorText(answer), true);
  const tools = answer.json.value.tools as ToolRow[];
  fillRows(
    byId('rows'),
    tools.map((t) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, h('a', { href: `/ui/code-tools/${seg(t.name)}` }, t.name)),
        h('td', {}, t.description),
        h('td', {}, badge(t.enabled ? 'enabled' : 'disabled')),
        h('td', { class: 'num' }, t.params.length),
        h('td', {}, when(t.updated_at)),
      ),
    ),
    'No code tools yet: create one with "New code tool".',
  );
}
