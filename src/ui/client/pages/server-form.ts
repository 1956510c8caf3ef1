/**
 * @module The "Add server" / "Edit" dialog: its fields become a server entry of the config
 * file (POST /api/v1/servers, or PATCH /api/v1/servers/{name} with the revision the page read
 * as If-Match, so a hand edit it replaces is reported). Values of env and headers are never
 * shown: "[hidden]" keeps the saved one.
 */
import { type ApiAnswer, api, errorText, seg } from '../api.ts';
import { byId, say } from '../dom.ts';
import { dialogFor } from './code-tools.ts';

export type Entry = Record<string, unknown>;

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');

/** `KEY=value` (or `Name: value`) lines as an object; a line without the separator is refused. */
function pairs(text: string, separator: string, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines(text)) {
    const at = line.indexOf(separator);
    if (at <= 0)
      throw new Error(
        `${field}: "${line}" is not ${separator === '=' ? 'KEY=value' : 'Name: value'}`,
      );
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

const shownPairs = (map: unknown, separator: string): string =>
  map && typeof map === 'object'
    ? Object.entries(map as Record<string, unknown>)
        .map(([k, v]) => `${k}${separator}${String(v)}`)
        .join('\n')
    : '';

function typeOf(entry: Entry): string {
  const declared = String(entry.protocol ?? entry.type ?? '');
  if (declared === 'sse' || declared === 'stdio') return declared;
  if (declared === 'http' || declared === 'streamable-http' || entry.url !== undefined)
    return 'http';
  return 'stdio';
}

const field = (id: string) => byId<HTMLInputElement | HTMLTextAreaElement>(id);

/**
 * The entry's fields from the form, `null` for one emptied (removed). A new server gets what
 * was filled in; an edit sends only what differs from the entry as read, so a hand edit of a
 * field the person did not touch is never overwritten with the value the page read.
 */
function fieldsOfForm(original: Entry | undefined): Entry {
  const type = byId<HTMLSelectElement>('sf-type').value;
  const text = (id: string) => field(id).value.trim();
  const orNull = <T>(value: T, empty: boolean) => (empty ? null : value);
  const stdio = type === 'stdio';
  const args = lines(field('sf-args').value);
  const env = pairs(field('sf-env').value, '=', 'Environment');
  const headers = pairs(field('sf-headers').value, ':', 'Headers');
  const out: Entry = {
    command: orNull(text('sf-command'), !stdio || text('sf-command') === ''),
    args: orNull(args, !stdio || args.length === 0),
    cwd: orNull(text('sf-cwd'), !stdio || text('sf-cwd') === ''),
    env: orNull(env, !stdio || Object.keys(env).length === 0),
    url: orNull(text('sf-url'), stdio || text('sf-url') === ''),
    headers: orNull(headers, stdio || Object.keys(headers).length === 0),
  };
  // The type is implied by command / url, but for sse; an edit that changes it names it.
  if (original ? type !== typeOf(original) : type === 'sse') {
    out.protocol = type;
    if (original?.type !== undefined) out.type = null;
  }
  for (const key of Object.keys(out)) {
    const same = original
      ? JSON.stringify(out[key] ?? null) === JSON.stringify(original[key] ?? null)
      : out[key] === null;
    if (same) delete out[key];
  }
  return out;
}

function showType(): void {
  const type = byId<HTMLSelectElement>('sf-type').value;
  for (const group of document.querySelectorAll<HTMLElement>('#server-form [data-for]')) {
    group.hidden = (group.dataset.for === 'stdio') !== (type === 'stdio');
  }
}

/** Opens the dialog to add a server (`entry` undefined) or to edit `entry` read at `revision`. */
export function serverForm(
  onSaved: (name: string, answer: ApiAnswer, edit?: { read: Entry; sent: Entry }) => Promise<void>,
) {
  const dialog = dialogFor('server-dialog');
  const form = byId<HTMLFormElement>('server-form');
  const error = byId('server-error');
  let editing: { entry: Entry; revision: string | null } | undefined;
  byId('sf-type').addEventListener('change', showType);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const name = field('sf-name').value.trim();
    let body: Entry;
    try {
      body = fieldsOfForm(editing?.entry);
    } catch (e) {
      error.textContent = (e as Error).message;
      return;
    }
    const answer = editing
      ? await api(
          'PATCH',
          `/servers/${seg(name)}`,
          body,
          editing.revision ? { 'if-match': `"${editing.revision}"` } : {},
        )
      : await api('POST', '/servers', { name, ...body });
    if (!answer.json.ok) {
      error.textContent = errorText(answer);
      return;
    }
    dialog.close();
    await onSaved(name, answer, editing && { read: editing.entry, sent: body });
  });
  const open = (entry?: Entry, revision?: string | null) => {
    editing = entry ? { entry, revision: revision ?? null } : undefined;
    form.reset();
    error.textContent = '';
    byId('server-dialog-title').textContent = entry ? `Edit ${entry.name}` : 'Add server';
    byId('server-submit').textContent = entry ? 'Save' : 'Add';
    const name = field('sf-name');
    name.readOnly = entry !== undefined;
    if (entry) {
      name.value = String(entry.name);
      byId<HTMLSelectElement>('sf-type').value = typeOf(entry);
      field('sf-command').value = String(entry.command ?? '');
      field('sf-args').value = Array.isArray(entry.args) ? entry.args.join('\n') : '';
      field('sf-cwd').value = String(entry.cwd ?? '');
      field('sf-env').value = shownPairs(entry.env, '=');
      field('sf-url').value = String(entry.url ?? '');
      field('sf-headers').value = shownPairs(entry.headers, ': ');
    }
    showType();
    dialog.showModal();
  };
  return { open };
}

/**
 * The status line after a save: what was saved and, when the file's entry had been edited by
 * hand after the page read it (`edit.read`), each field that edit changed: kept, or replaced
 * by this save (with the value it had).
 */
export function sayWritten(
  name: string,
  answer: ApiAnswer,
  what: string,
  edit?: { read: Entry; sent: Entry },
): void {
  const replaced = answer.json.value?.replaced?.entry as Entry | undefined;
  const saved = `${what} ${name}: saved to the config file`;
  if (!replaced) return void say(saved);
  const read = edit?.read ?? {};
  const byHand = Object.keys({ ...read, ...replaced }).filter(
    (key) => JSON.stringify(read[key]) !== JSON.stringify(replaced[key]),
  );
  const fates = byHand.map((key) =>
    edit && key in edit.sent
      ? `${key} (replaced by this save; it was ${JSON.stringify(replaced[key]) ?? 'absent'})`
      : `${key} (kept)`,
  );
  say(
    `${saved}. The file's entry had been edited after this page read it: ${fates.join(', ') || 'no field of it differs'}.`,
    true,
  );
}
