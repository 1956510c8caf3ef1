/**
 * @module Servers: a row per upstream (GET /api/v1/servers) with its held tools counted, and
 * one server's tools, a held one with its before / after definitions and an "Approve" button
 * (GET /api/v1/tools/held, POST .../approve; see docs/pinning.md), its MCP annotations as
 * tags and what tool_policy decides for its calls. A server in `needs_auth` has a "Sign in"
 * button: it opens the authorization server's page and waits for the sign-in (docs/oauth.md).
 */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say } from '../dom.ts';
import { outputBlock } from '../output.ts';
import { followServer, SIGNING_IN, serverButtons } from './server-actions.ts';
import { setUpServerDetail, showServerDetail, toolSwitch } from './server-detail.ts';
import { sayWritten, serverForm } from './server-form.ts';

interface ServerRow {
  name: string;
  state: string;
  protocol: string;
  tools: number;
  last_error?: string;
}

interface HeldTool {
  server: string;
  tool: string;
  change: 'new' | 'changed';
  fields: string[];
  before: unknown;
  after: unknown;
  /** The digest of `after`: the approval names it, so it approves only what this page shows. */
  sha256: string;
}

/** The held tools (empty when they cannot be read: the page still shows the rest). */
async function heldTools(): Promise<HeldTool[]> {
  const answer = await api('GET', '/tools/held');
  return answer.status === 200 ? (answer.json.items as HeldTool[]) : [];
}

/** What the tools route says of each tool. */
interface ToolRow {
  name: string;
  description: string;
  input_schema: unknown;
  annotations?: Record<string, unknown>;
  policy?: { action: 'allow' | 'ask' | 'deny'; reason: string };
  disabled?: boolean;
  pinned?: boolean;
}

/** The MCP hints a server declared, as words (only those it set: the spec's defaults are not claims). */
const HINT_WORDS: Array<[string, boolean, string]> = [
  ['readOnlyHint', true, 'read-only'],
  ['destructiveHint', true, 'destructive'],
  ['destructiveHint', false, 'non-destructive'],
  ['idempotentHint', true, 'idempotent'],
  ['openWorldHint', true, 'open-world'],
  ['openWorldHint', false, 'closed-world'],
];

/** A table cell of an MCP tool's annotations as tags (and its title, when it has one). */
export function annotationsCell(annotations: Record<string, unknown> = {}): HTMLElement {
  const words = HINT_WORDS.filter(([key, value]) => annotations[key] === value).map(([, , word]) =>
    h('span', { class: `tag t-${word}` }, word),
  );
  const title = typeof annotations.title === 'string' ? annotations.title : '';
  return h(
    'td',
    { class: 'tags' },
    ...(words.length > 0 ? words : [h('span', { class: 'hint' }, 'none')]),
    title ? h('div', { class: 'hint' }, `title: ${title}`) : '',
  );
}

function policyCell(policy: ToolRow['policy']): HTMLElement {
  if (!policy) return h('td', {});
  return h('td', {}, badge(policy.action), h('div', { class: 'hint' }, policy.reason));
}

/** How long one wait for a sign-in may hold a request (the gateway allows 30 s). */
const SIGN_IN_WAIT_MS = 25_000;
/** Reads the list again until `server` has settled, so its row does not stay "connecting". */
const followConnection = (server: string, settling?: ReadonlySet<string>) =>
  followServer(
    async () => (await showServers())?.servers.find((s) => s.name === server)?.state,
    settling,
  );

/** Waits for the sign-in `flowId` to finish; its outcome as the status line says it. */
async function awaitSignIn(server: string, flowId: string): Promise<void> {
  for (;;) {
    const answer = await api('GET', `/auth/flows/${seg(flowId)}?wait_ms=${SIGN_IN_WAIT_MS}`);
    if (!answer.json.ok) return say(errorText(answer), true);
    const status = answer.json.status as string;
    if (status === 'completed') {
      say(`signed in to ${server}`);
      return followConnection(server, SIGNING_IN);
    }
    if (status !== 'pending' && status !== 'exchanging') {
      return say(`the sign-in to ${server} failed: ${answer.json.error}`, true);
    }
  }
}

/**
 * "Sign in": the page opens at once (a window opened after an await is blocked as a popup),
 * then goes to the authorization URL; without a window, the URL is shown as a link.
 */
function signInButton(server: string): HTMLElement {
  const button = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        const opened = window.open('', '_blank');
        if (opened) opened.opener = null;
        button.setAttribute('disabled', '');
        const answer = await api('POST', `/servers/${seg(server)}/auth/login`);
        button.removeAttribute('disabled');
        if (answer.status !== 201) {
          opened?.close();
          return say(errorText(answer), true);
        }
        const url = answer.json.authorization_url as string;
        if (opened) opened.location.href = url;
        else
          button.after(
            h('a', { href: url, target: '_blank', rel: 'noopener' }, 'Open the sign-in page'),
          );
        say(`waiting for the sign-in to ${server} (finish it in the page that opened)`);
        await awaitSignIn(server, answer.json.flow_id as string);
      },
    },
    'Sign in',
  );
  return button;
}

/** Fills the table; what it showed, or undefined when the list could not be read (said). */
async function showServers(): Promise<{ servers: ServerRow[]; held: HeldTool[] } | undefined> {
  const [answer, held] = await Promise.all([api('GET', '/servers'), heldTools()]);
  if (!answer.json.ok) {
    say(errorText(answer), true);
    return undefined;
  }
  const servers = answer.json.value.servers as ServerRow[];
  fillRows(
    byId('rows'),
    servers.map((s) => {
      const n = held.filter((t) => t.server === s.name).length;
      return h(
        'tr',
        {},
        h('th', { scope: 'row' }, h('a', { href: `/ui/servers/${seg(s.name)}` }, s.name)),
        h(
          'td',
          {},
          badge(s.state),
          s.state === 'needs_auth' ? ' ' : '',
          s.state === 'needs_auth' ? signInButton(s.name) : '',
        ),
        h('td', {}, s.protocol),
        h('td', { class: 'num' }, s.tools, n > 0 ? ' ' : '', n > 0 ? badge('held') : ''),
        h(
          'td',
          { class: s.last_error ? 'error' : '' },
          s.last_error ? h('div', { class: 'clamp', title: s.last_error }, s.last_error) : '',
        ),
        h(
          'td',
          { class: 'row-actions' },
          ...serverButtons(s.name, s.state, () => followConnection(s.name)),
        ),
      );
    }),
    'No servers in the config.',
  );
  return { servers, held };
}

export async function serversPage(): Promise<void> {
  const form = serverForm(async (name, answer) => {
    await followConnection(name);
    sayWritten(name, answer, 'Added');
  });
  byId('add-server').addEventListener('click', () => form.open());
  const held = (await showServers())?.held ?? [];
  if (held.length > 0)
    say(`${held.length} held tool${held.length === 1 ? '' : 's'}: open the server to approve`);
}

function heldCell(server: string, t: HeldTool, main: HTMLElement): HTMLElement {
  const approve = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        approve.setAttribute('disabled', '');
        const answer = await api('POST', `/servers/${seg(server)}/tools/${seg(t.tool)}/approve`, {
          sha256: t.sha256,
        });
        if (answer.status === 409) {
          // It changed since this page showed it: show what it is now, still held.
          await showServerTools(main);
          return say(errorText(answer), true);
        }
        if (answer.status !== 200) {
          approve.removeAttribute('disabled');
          return say(errorText(answer), true);
        }
        await showServerTools(main);
        say(`approved ${server}.${t.tool}`);
      },
    },
    'Approve',
  );
  return h(
    'div',
    { class: 'held' },
    h(
      'p',
      {},
      t.change === 'new'
        ? 'Held: new, never approved.'
        : `Held: changed since it was approved (${t.fields.join(', ')}).`,
    ),
    h(
      'details',
      { open: true },
      h('summary', {}, 'Before / after'),
      h('p', {}, 'Before (approved)'),
      t.before === null ? h('p', {}, 'none: a new tool') : outputBlock(t.before, 'Before'),
      h('p', {}, 'After (listed now)'),
      outputBlock(t.after, 'After'),
      h('p', { class: 'hint' }, `sha256 ${t.sha256}`),
    ),
    approve,
  );
}

export async function serverPage(main: HTMLElement): Promise<void> {
  const name = main.dataset.name ?? '';
  const reload = () => showServerTools(main);
  setUpServerDetail(name, reload);
  await reload();
}

async function showServerTools(main: HTMLElement): Promise<string | undefined> {
  const name = main.dataset.name ?? '';
  const reload = () => showServerTools(main);
  const detail = await showServerDetail(name, reload);
  if (!detail) return undefined;
  const [answer, allHeld] = await Promise.all([
    api('GET', `/servers/${seg(name)}/tools`),
    heldTools(),
  ]);
  if (!answer.json.ok) {
    say(errorText(answer), true);
    return detail.server.state;
  }
  const held = new Map(allHeld.filter((t) => t.server === name).map((t) => [t.tool, t]));
  const tools = answer.json.value.tools as ToolRow[];
  fillRows(
    byId('rows'),
    tools.map((t) => {
      const hold = held.get(t.name);
      return h(
        'tr',
        {},
        h(
          'th',
          { scope: 'row' },
          h('a', { href: `/ui/tools/${seg(name)}/${seg(t.name)}` }, t.name),
          hold ? ' ' : '',
          hold ? badge('held') : '',
        ),
        h('td', {}, t.description, hold ? heldCell(name, hold, main) : ''),
        annotationsCell(t.annotations),
        policyCell(t.policy),
        h('td', {}, h('details', {}, h('summary', {}, 'Schema'), outputBlock(t.input_schema))),
        toolSwitch(name, t.name, t.disabled === true, reload, t.pinned === true && !hold),
      );
    }),
    'This server lists no tools (it may not be connected).',
  );
  return detail.server.state;
}
