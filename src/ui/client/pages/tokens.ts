/** @module Tokens: create (the secret shown once), list, revoke, through /api/v1/tokens. */
import { api, errorText, seg } from '../api.ts';
import { copyButton } from '../copy.ts';
import { byId, fillRows, h, say, when } from '../dom.ts';

interface TokenRow {
  name: string;
  servers: string[];
  code_tools: string[];
  created_at: string;
  last_used_at?: string;
}

function checkboxes(fieldset: HTMLElement, group: string, names: string[], empty: string): void {
  for (const old of fieldset.querySelectorAll('div, p')) old.remove();
  if (names.length === 0) fieldset.append(h('p', { class: 'hint' }, empty));
  for (const name of names) {
    const id = `${group}-${name}`;
    fieldset.append(
      h(
        'div',
        { class: 'check' },
        h('input', { type: 'checkbox', id, name: group, value: name }),
        h('label', { for: id }, name),
      ),
    );
  }
}

export async function tokensPage(): Promise<void> {
  const form = byId<HTMLFormElement>('token-form');
  const [servers, tools] = await Promise.all([api('GET', '/servers'), api('GET', '/code-tools')]);
  checkboxes(
    byId('token-servers'),
    'servers',
    (servers.json.value?.servers ?? []).map((s: { name: string }) => s.name),
    'No servers.',
  );
  checkboxes(
    byId('token-code-tools'),
    'code_tools',
    (tools.json.value?.tools ?? []).map((t: { name: string }) => t.name),
    'No code tools.',
  );

  const load = async () => {
    const answer = await api('GET', '/tokens');
    if (!answer.json.ok) return say(errorText(answer), true);
    fillRows(
      byId('rows'),
      (answer.json.value.tokens as TokenRow[]).map((t) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, t.name),
          h('td', {}, t.servers.join(', ')),
          h('td', {}, t.code_tools.join(', ')),
          h('td', {}, when(t.created_at)),
          h('td', {}, when(t.last_used_at)),
          h(
            'td',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': `Revoke ${t.name}`,
                onclick: async () => {
                  if (
                    !window.confirm(`Revoke token ${t.name}? Agents using it are refused at once.`)
                  )
                    return;
                  const revoked = await api('DELETE', `/tokens/${seg(t.name)}`);
                  if (!revoked.json.ok) return say(errorText(revoked), true);
                  say(`Token ${t.name} revoked.`);
                  await load();
                },
              },
              'Revoke',
            ),
          ),
        ),
      ),
      'No agent tokens.',
    );
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const answer = await api('POST', '/tokens', {
      name: String(data.get('name') ?? '').trim(),
      servers: data.getAll('servers').map(String),
      code_tools: data.getAll('code_tools').map(String),
    });
    const secret = byId('secret');
    if (!answer.json.ok) {
      secret.replaceChildren(h('p', { class: 'error' }, errorText(answer)));
      return;
    }
    const value = h(
      'pre',
      { class: 'output secret', tabindex: 0, 'aria-label': 'Token secret' },
      answer.json.value.token,
    );
    secret.replaceChildren(
      h(
        'p',
        {},
        `Token ${answer.json.value.name} created. Copy its secret now: it is not shown again.`,
      ),
      h('div', { class: 'copyable' }, value, copyButton(value, 'Copy token')),
    );
    form.reset();
    await load();
  });
  await load();
}
