/**
 * @module A code tool's configure page (Vectoralix): the page-level Save (code, limits,
 * enabled together), param rows saved at once from their dialog, a Test form, versions.
 */
import { api, errorText, seg } from '../api.ts';
import { byId, fillRows, h, say, when } from '../dom.ts';
import { type CodeEditor, codeEditor } from '../editor.ts';
import { outputBlock } from '../output.ts';
import { dialogFor } from './code-tools.ts';

interface Param {
  name: string;
  description: string;
  type: string;
  required: boolean;
  default_value: unknown;
}
interface Tool {
  name: string;
  description: string;
  code: string;
  timeout_ms: number;
  memory_limit_mb: number;
  enabled: boolean;
  allowed_servers: string[];
  params: Param[];
}
interface Version {
  version: number;
  created_at: string;
  enabled: boolean;
  code: string;
}

/** Form text to a JSON value: strings stay text for string-like types, others parse as JSON when they can. */
function fromText(text: string, type: string): unknown {
  if (type === 'string' || type === 'date') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const shown = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

export async function codeToolPage(main: HTMLElement): Promise<void> {
  const name = main.dataset.name ?? '';
  const base = `/code-tools/${seg(name)}`;
  const form = byId<HTMLFormElement>('tool-form');
  const field = <T extends HTMLElement>(id: string) => byId<T>(id);
  let editor: CodeEditor | undefined;
  let tool: Tool | undefined;

  const load = async () => {
    const answer = await api('GET', base);
    if (!answer.json.ok) return say(errorText(answer), true);
    tool = answer.json.value as Tool;
    field<HTMLTextAreaElement>('tool-description').value = tool.description;
    field<HTMLInputElement>('timeout').value = String(tool.timeout_ms);
    field<HTMLInputElement>('memory').value = String(tool.memory_limit_mb);
    field<HTMLInputElement>('allowed').value = tool.allowed_servers.join(', ');
    field<HTMLInputElement>('enabled').checked = tool.enabled;
    if (editor) editor.set(tool.code);
    else editor = codeEditor(byId('code-editor'), tool.code);
    renderParams(tool.params);
    renderTest(tool.params);
    await loadVersions();
  };

  // Save's outcome shows beside the button, where the eye is; an edit makes it stale.
  const saveSays = (message: string, error = false) => say(message, error, 'save-status');
  form.addEventListener('input', () => saveSays(''));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say('');
    saveSays('Saving…');
    const answer = await api('PUT', base, {
      description: field<HTMLTextAreaElement>('tool-description').value,
      code: editor?.get() ?? '',
      timeout_ms: Number(field<HTMLInputElement>('timeout').value),
      memory_limit_mb: Number(field<HTMLInputElement>('memory').value),
      enabled: field<HTMLInputElement>('enabled').checked,
      allowed_servers: field<HTMLInputElement>('allowed')
        .value.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    });
    if (!answer.json.ok) return saveSays(errorText(answer), true);
    saveSays(`Saved version ${answer.json.value.version}.`);
    await load();
  });

  // Parameters: each row saves at once from its dialog.
  const dialog = dialogFor('param-dialog');
  const paramForm = byId<HTMLFormElement>('param-form');
  let editing: string | undefined;
  const openParam = (param?: Param) => {
    paramForm.reset();
    editing = param?.name;
    byId('param-error').textContent = '';
    byId('param-title').textContent = param ? `Edit parameter ${param.name}` : 'Add parameter';
    if (param) {
      field<HTMLInputElement>('param-name').value = param.name;
      field<HTMLInputElement>('param-description').value = param.description;
      field<HTMLSelectElement>('param-type').value = param.type;
      field<HTMLInputElement>('param-required').checked = param.required;
      field<HTMLInputElement>('param-default').value = shown(param.default_value);
    }
    dialog.showModal();
  };
  byId('add-param').addEventListener('click', () => openParam());
  paramForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const type = field<HTMLSelectElement>('param-type').value;
    const defaultText = field<HTMLInputElement>('param-default').value;
    const row = {
      name: field<HTMLInputElement>('param-name').value.trim(),
      description: field<HTMLInputElement>('param-description').value,
      type,
      required: field<HTMLInputElement>('param-required').checked,
      default_value: defaultText === '' ? null : fromText(defaultText, type),
    };
    const answer = editing
      ? await api('PUT', `${base}/params/${seg(editing)}`, row)
      : await api('POST', `${base}/params`, row);
    if (!answer.json.ok) {
      byId('param-error').textContent = errorText(answer);
      return;
    }
    dialog.close();
    say(`Parameter ${row.name} saved.`);
    await load();
  });

  function renderParams(params: Param[]) {
    fillRows(
      byId('param-rows'),
      params.map((p) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('code', {}, p.name)),
          h('td', {}, p.type),
          h('td', {}, p.required ? 'yes' : 'no'),
          h('td', {}, shown(p.default_value)),
          h('td', {}, p.description),
          h(
            'td',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                'aria-label': `Edit ${p.name}`,
                onclick: () => openParam(p),
              },
              'Edit',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': `Delete ${p.name}`,
                onclick: async () => {
                  if (!window.confirm(`Delete parameter ${p.name}?`)) return;
                  const answer = await api('DELETE', `${base}/params/${seg(p.name)}`);
                  if (!answer.json.ok) return say(errorText(answer), true);
                  say(`Parameter ${p.name} deleted.`);
                  await load();
                },
              },
              'Delete',
            ),
          ),
        ),
      ),
      'No parameters: "Add parameter" declares one.',
    );
  }

  // Test: a field per param; the values go through POST .../run like an MCP call's arguments.
  function renderTest(params: Param[]) {
    byId('test-fields').replaceChildren(
      ...params.map((p) =>
        h(
          'div',
          {},
          h('label', { for: `test-${p.name}` }, p.name),
          h('input', {
            id: `test-${p.name}`,
            name: p.name,
            'data-type': p.type,
            required: p.required,
            placeholder: `${p.type}${p.required ? ', required' : ''}`,
          }),
        ),
      ),
    );
  }
  byId<HTMLFormElement>('test-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const args: Record<string, unknown> = {};
    for (const input of byId('test-fields').querySelectorAll('input')) {
      if (input.value !== '')
        args[input.name] = fromText(input.value, input.dataset.type ?? 'string');
    }
    const region = byId('test-result');
    region.replaceChildren(h('p', {}, 'Running…'));
    const answer = await api('POST', `${base}/run`, { arguments: args });
    const body = answer.json;
    region.replaceChildren(
      body.ok
        ? h('p', { class: 'ok' }, 'Result')
        : h('p', { class: 'error' }, body.error?.code ?? `HTTP ${answer.status}`),
      outputBlock(body.ok ? body.value : (body.error?.message ?? errorText(answer)), 'Test output'),
      ...(body.logs?.length
        ? [h('h3', {}, 'Logs'), outputBlock(body.logs.join('\n'), 'Logs')]
        : []),
    );
  });

  async function loadVersions() {
    const answer = await api('GET', `${base}/versions`);
    if (!answer.json.ok) return;
    const versions = answer.json.value.versions as Version[];
    fillRows(
      byId('version-rows'),
      [...versions].reverse().map((v) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, v.version),
          h('td', {}, when(v.created_at)),
          h('td', {}, v.enabled ? 'yes' : 'no'),
          h(
            'td',
            {},
            h(
              'details',
              {},
              h('summary', {}, `${v.code.split('\n').length} lines`),
              outputBlock(v.code),
            ),
          ),
          h(
            'td',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                'aria-label': `Restore version ${v.version}`,
                onclick: async () => {
                  const restored = await api('POST', `${base}/versions/${v.version}/restore`);
                  if (!restored.json.ok) return say(errorText(restored), true);
                  saveSays('');
                  say(
                    `Restored version ${v.version} (saved as version ${restored.json.value.version}).`,
                  );
                  await load();
                },
              },
              'Restore',
            ),
          ),
        ),
      ),
      'No versions yet: each Save makes one.',
    );
  }

  await load();
}
