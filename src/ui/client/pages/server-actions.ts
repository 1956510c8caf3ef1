/**
 * @module A server's action buttons, on its row and on its page: Enable / Disable, Quarantine /
 * Unquarantine (config fields written to the file), Restart (the connection only) and Delete
 * (from the file, after a confirmation); and how a page follows a server while it connects.
 */
import { api, errorText, seg } from '../api.ts';
import { h, say } from '../dom.ts';
import { sayWritten } from './server-form.ts';

/** How long a page follows a server connecting, and how often it looks. */
const FOLLOW_MS = 30_000;
const FOLLOW_POLL_MS = 500;
/** The states a server passes through on its way to ready or failed (after an action, an edit). */
export const CONNECTING = new Set(['idle', 'connecting']);
/** After a completed sign-in: `needs_auth` too, until the server sees the tokens. */
export const SIGNING_IN = new Set(['needs_auth', 'idle', 'connecting']);

/**
 * The server connects in the background after an action: `read` (which shows the page again
 * and answers the server's state) runs until the state is not one of `settling`, so the page
 * does not stay on "connecting".
 */
export async function followServer(
  read: () => Promise<string | undefined>,
  settling: ReadonlySet<string> = CONNECTING,
): Promise<void> {
  const until = Date.now() + FOLLOW_MS;
  for (;;) {
    const state = await read();
    if (state === undefined || !settling.has(state) || Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
}

interface Action {
  label: string;
  path: string;
  method?: string;
  done: string;
  confirm?: string;
}

function actionsFor(name: string, state: string): Action[] {
  const off = state === 'disabled';
  const held = state === 'quarantined';
  return [
    off
      ? { label: 'Enable', path: 'enable', done: 'enabled' }
      : { label: 'Disable', path: 'disable', done: 'disabled' },
    held
      ? { label: 'Unquarantine', path: 'unquarantine', done: 'unquarantined' }
      : { label: 'Quarantine', path: 'quarantine', done: 'quarantined' },
    ...(off || held ? [] : [{ label: 'Restart', path: 'restart', done: 'restarted' }]),
    {
      label: 'Delete',
      path: '',
      method: 'DELETE',
      done: 'deleted',
      confirm: `Delete the server "${name}" from the config file?`,
    },
  ];
}

/** The buttons for server `name` in `state`; `after` runs once an action succeeded. */
export function serverButtons(
  name: string,
  state: string,
  after: (action: string) => Promise<void>,
): HTMLElement[] {
  return actionsFor(name, state).map((action) => {
    const button = h(
      'button',
      {
        type: 'button',
        class: action.method === 'DELETE' ? 'secondary danger' : 'secondary',
        onclick: async () => {
          if (action.confirm && !window.confirm(action.confirm)) return;
          button.setAttribute('disabled', '');
          const route = `/servers/${seg(name)}${action.path ? `/${action.path}` : ''}`;
          const answer = await api(action.method ?? 'POST', route);
          button.removeAttribute('disabled');
          if (!answer.json.ok) return say(errorText(answer), true);
          await after(action.done);
          if (action.path === 'restart') say(`restarted ${name}`);
          else sayWritten(name, answer, action.done[0]!.toUpperCase() + action.done.slice(1));
        },
      },
      action.label,
    );
    return button;
  });
}
