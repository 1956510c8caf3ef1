/**
 * @module The Approvals page's "Input" section: upstream servers' requests for input during a
 * call (GET /api/v1/inputs), live from their SSE stream, each pending one a form built from
 * the server's schema with "Send" and "Decline" (POST .../answer, .../decline). An answer from
 * anywhere (the calling client, the CLI) updates its item in place.
 */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, h, say, when } from '../dom.ts';

interface InputRequest {
  id: string;
  status: 'pending' | 'answered' | 'declined' | 'expired';
  server: string;
  tool: string | null;
  message: string;
  requested_schema: { properties?: Record<string, Field>; required?: string[] };
  caller: string | null;
  activity_id: string | null;
  created_at: string;
  expires_at: string;
  answered_by: string | null;
}

interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  default?: unknown;
}

/** Recent answered ones kept below the pending ones. */
const SHOWN = 50;

/** One form control for `field`, named `name`, its default filled in. */
function control(name: string, field: Field, required: boolean): HTMLElement {
  const choices = field.enum ?? field.oneOf?.map((c) => c.const);
  if (choices) {
    const select = h('select', { name, required });
    if (!required) select.append(h('option', { value: '' }, ''));
    choices.forEach((choice, i) => {
      const label = field.oneOf?.[i]?.title ?? String(choice);
      select.append(
        h('option', { value: String(choice), selected: choice === field.default }, label),
      );
    });
    return select;
  }
  if (field.type === 'boolean')
    return h('input', { type: 'checkbox', name, checked: field.default === true });
  const numeric = field.type === 'number' || field.type === 'integer';
  return h('input', {
    type: numeric ? 'number' : 'text',
    name,
    required,
    step: field.type === 'integer' ? 1 : numeric ? 'any' : undefined,
    value: field.default === undefined ? undefined : String(field.default),
  });
}

/** The form's values as the server's types: empty optional fields are left out (its defaults apply). */
function contentOf(form: HTMLFormElement, fields: Record<string, Field>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const element = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    if (!element) continue;
    if (field.type === 'boolean') {
      content[name] = (element as HTMLInputElement).checked;
      continue;
    }
    if (element.value === '') continue;
    const numeric = field.type === 'number' || field.type === 'integer';
    content[name] = numeric ? Number(element.value) : element.value;
  }
  return content;
}

export async function inputSection(): Promise<void> {
  const list = byId('inputs');
  const known = new Map<string, InputRequest>();

  const send = async (input: InputRequest, action: 'answer' | 'decline', form: HTMLFormElement) => {
    const fields = input.requested_schema.properties ?? {};
    if (action === 'answer' && !form.reportValidity()) return;
    for (const b of form.querySelectorAll('button')) b.setAttribute('disabled', '');
    const answer = await api(
      'POST',
      `/inputs/${seg(input.id)}/${action}`,
      action === 'answer' ? { content: contentOf(form, fields) } : undefined,
    ).catch((error: Error) => ({ status: 0, json: { error: { message: error.message } } }));
    if (answer.status === 200) {
      upsert(answer.json.input as InputRequest);
      return say(action === 'answer' ? `Answered ${input.server}.` : `Declined ${input.server}.`);
    }
    for (const b of form.querySelectorAll('button')) b.removeAttribute('disabled');
    if (answer.json?.input) upsert(answer.json.input as InputRequest);
    const message = errorText(answer);
    list
      .querySelector(`li[data-id="${CSS.escape(input.id)}"]`)
      ?.append(h('p', { class: 'notice', role: 'alert' }, message));
    say(message, true);
  };

  const formOf = (input: InputRequest) => {
    const fields = input.requested_schema.properties ?? {};
    const required = new Set(input.requested_schema.required ?? []);
    const form = h('form', { class: 'input-form', 'aria-label': `Answer ${input.id}` });
    for (const [name, field] of Object.entries(fields)) {
      form.append(
        h(
          'label',
          {},
          `${field.title ?? name}${required.has(name) ? ' (required)' : ''} `,
          control(name, field, required.has(name)),
          field.description ? h('span', { class: 'hint' }, field.description) : '',
        ),
      );
    }
    const decline = h('button', { type: 'button', class: 'danger' }, 'Decline');
    decline.addEventListener('click', () => void send(input, 'decline', form));
    form.append(h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Send'), decline));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void send(input, 'answer', form);
    });
    return form;
  };

  const item = (input: InputRequest) =>
    h(
      'li',
      { 'data-id': input.id, 'data-status': input.status },
      h(
        'p',
        {},
        h('strong', {}, input.tool === null ? input.server : `${input.server}.${input.tool}`),
        ' asks ',
        badge(input.status),
        input.answered_by ? h('span', { class: 'hint' }, ` by ${input.answered_by}`) : '',
      ),
      h('p', { class: 'message' }, input.message),
      h(
        'p',
        { class: 'hint' },
        `${when(input.created_at)}${input.caller ? ` · ${input.caller}` : ''}${input.status === 'pending' ? ` · expires ${when(input.expires_at)}` : ''} · ${input.id}`,
        input.activity_id
          ? h('a', { href: `/ui/activity/${seg(input.activity_id)}` }, ' Execution record')
          : '',
      ),
      input.status === 'pending' ? formOf(input) : '',
    );

  /** Puts `input` on the page: its item redrawn in place, or a new one in id (time) order. */
  function upsert(input: InputRequest): void {
    const before = known.get(input.id);
    if (before && before.status !== 'pending' && input.status === 'pending') return;
    known.set(input.id, input);
    list.querySelector('li.empty')?.remove();
    const fresh = item(input);
    const existing = list.querySelector(`li[data-id="${CSS.escape(input.id)}"]`);
    // A pending item keeps what was typed into it: only a change of status redraws it.
    if (existing) {
      if (before?.status !== input.status) existing.replaceWith(fresh);
      return;
    }
    const later = [...list.querySelectorAll<HTMLElement>('li[data-id]')].find(
      (li) => (li.dataset.id ?? '') < input.id,
    );
    list.insertBefore(fresh, later ?? null);
    const items = list.querySelectorAll('li[data-id]');
    for (let i = SHOWN; i < items.length; i++) items[i]?.remove();
  }

  const load = async () => {
    const answer = await api('GET', '/inputs');
    if (answer.status !== 200) return say(errorText(answer), true);
    for (const input of (answer.json.items as InputRequest[]).slice(0, SHOWN)) upsert(input);
    if (!list.querySelector('li[data-id]'))
      list.replaceChildren(h('li', { class: 'empty hint' }, 'No upstream has asked for input.'));
  };

  const stream = new EventSource('/api/v1/inputs/stream');
  let connected = false;
  stream.addEventListener('input', (event) =>
    upsert(JSON.parse((event as MessageEvent<string>).data) as InputRequest),
  );
  stream.addEventListener('ready', () => {
    if (connected) void load();
    connected = true;
  });
  await load();
}
