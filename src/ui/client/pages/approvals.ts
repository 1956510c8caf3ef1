/**
 * @module Approvals: calls tool_policy holds (GET /api/v1/approvals), live from the SSE stream,
 * each with "Approve" and "Deny" (POST .../approve, .../deny with the digest of the arguments
 * shown). A decision from anywhere (CLI, REST, another instance) updates its row in place.
 * When tool_policy.approval_channels leaves out "dashboard" (<main data-decide="off">, or a
 * decision refused with CHANNEL_DISABLED after a reload of the config), the rows have no
 * buttons and the page says why.
 */
import { api, errorText, seg } from '../api.ts';
import { badge, byId, fillRows, h, say, when } from '../dom.ts';
import { outputBlock } from '../output.ts';
import { approvalAnchor } from '../pending-approvals.ts';
import { inputSection } from './input-requests.ts';

interface Approval {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  server: string;
  tool: string;
  args: unknown;
  /** True when `args` leaves out `args_cut_keys` (over 64 KiB); the whole JSON is at .../args. */
  args_truncated: boolean;
  args_cut_keys: string[];
  args_sha256: string;
  reason: string;
  caller: string;
  activity_id: string | null;
  code: string | null;
  created_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
}

/** Recent decisions shown below the pending ones. */
const DECIDED_SHOWN = 50;
const TICK_MS = 1000;

/** "in 1 min 40 s" until `iso`; "due" once it passed (the gateway sends the expiry). */
function countdown(iso: string): string {
  const s = Math.round((new Date(iso).getTime() - Date.now()) / 1000);
  if (Number.isNaN(s)) return '';
  if (s <= 0) return 'due';
  const min = Math.floor(s / 60);
  return min > 0 ? `in ${min} min ${s % 60} s` : `in ${s} s`;
}

/** What a refused decision means to the person who clicked. */
function refusalText(status: number, code: string | undefined, approval?: Approval): string {
  const by = approval?.decided_by ? ` by ${approval.decided_by}` : '';
  if (status === 409 && code === 'APPROVAL_DECIDED')
    return `Already decided elsewhere: ${approval?.status ?? 'decided'}${by}.`;
  if (status === 410) return 'This approval expired before the decision; the call was not sent.';
  if (status === 409 && code === 'ARGS_MISMATCH')
    return 'The arguments changed since this page showed them; reload and look again.';
  if (status === 404) return 'This approval no longer exists.';
  return '';
}

export async function approvalsPage(main: HTMLElement): Promise<void> {
  let decideOff = main.dataset.decide === 'off';
  const pending = byId('pending');
  const decided = byId('decided');
  const known = new Map<string, Approval>();
  // Rows first seen pending stay in the pending table once decided (their status shows there).
  const seenPending = new Set<string>();

  const tableOf = (a: Approval) => (seenPending.has(a.id) ? pending : decided);

  const statusCell = (a: Approval) =>
    h(
      'td',
      { class: 'status-cell' },
      badge(a.status),
      a.decided_by ? h('div', { class: 'hint' }, `by ${a.decided_by}`) : '',
      a.decided_at ? h('div', { class: 'hint' }, when(a.decided_at)) : '',
    );

  const decide = async (a: Approval, decision: 'approve' | 'deny', note: HTMLElement) => {
    const row = note.closest('tr');
    for (const b of row?.querySelectorAll('button') ?? []) b.setAttribute('disabled', '');
    let answer: Awaited<ReturnType<typeof api>>;
    try {
      answer = await api('POST', `/approvals/${seg(a.id)}/${decision}`, {
        args_sha256: a.args_sha256,
      });
    } catch (error) {
      for (const b of row?.querySelectorAll('button') ?? []) b.removeAttribute('disabled');
      return say(`The decision was not sent: ${(error as Error).message}`, true);
    }
    if (answer.status === 200) {
      upsert(answer.json.approval as Approval);
      return say(`${decision === 'approve' ? 'Approved' : 'Denied'} ${a.server}.${a.tool}.`);
    }
    if (answer.status === 403 && answer.json?.error?.code === 'CHANNEL_DISABLED') {
      return closeChannel(String(answer.json.error.message));
    }
    const current = answer.json?.approval as Approval | undefined;
    const message =
      refusalText(answer.status, answer.json?.error?.code, current) || errorText(answer);
    if (current) upsert(current);
    else for (const b of row?.querySelectorAll('button') ?? []) b.removeAttribute('disabled');
    // The row may have been redrawn: the note goes on the row as it is now.
    const cell = tableOf(a).querySelector(`tr[data-id="${CSS.escape(a.id)}"] .decision`);
    cell?.append(h('p', { class: 'notice', role: 'alert' }, message));
    say(message, answer.status !== 409 && answer.status !== 410);
  };

  /** The config closed the dashboard channel since the page was made: no row offers buttons. */
  const closeChannel = (reason: string) => {
    decideOff = true;
    const notice = byId('channel-off');
    notice.textContent = `Read only: ${reason}.`;
    notice.hidden = false;
    for (const a of known.values()) if (a.status === 'pending') upsert(a);
    say(notice.textContent, true);
  };

  const decisionCell = (a: Approval) => {
    const cell = h('td', { class: 'decision' });
    if (a.status !== 'pending' || decideOff) return cell;
    cell.append(
      h('button', { type: 'button', onclick: () => void decide(a, 'approve', cell) }, 'Approve'),
      h(
        'button',
        { type: 'button', class: 'danger', onclick: () => void decide(a, 'deny', cell) },
        'Deny',
      ),
    );
    return cell;
  };

  const row = (a: Approval) =>
    h(
      'tr',
      {
        id: approvalAnchor(a.id),
        class: location.hash === `#${approvalAnchor(a.id)}` ? 'linked' : undefined,
        'data-id': a.id,
        'data-status': a.status,
      },
      h('td', {}, when(a.created_at)),
      h('td', {}, a.server),
      h('th', { scope: 'row' }, a.tool),
      h(
        'td',
        { class: 'request' },
        outputBlock(a.args, 'Arguments'),
        a.args_truncated
          ? h(
              'p',
              { class: 'cut' },
              `Not shown above (the arguments are over 64 KiB): ${a.args_cut_keys.join(', ')}. `,
              h('a', { href: `/api/v1/approvals/${seg(a.id)}/args` }, 'Whole arguments (JSON)'),
            )
          : '',
        a.code ? h('details', {}, h('summary', {}, 'Program'), outputBlock(a.code, 'Program')) : '',
        a.activity_id
          ? h('a', { href: `/ui/activity/${seg(a.activity_id)}` }, 'Execution record')
          : '',
      ),
      h('td', {}, a.caller),
      h('td', {}, a.reason),
      h(
        'td',
        { 'data-expires': a.status === 'pending' ? a.expires_at : undefined },
        when(a.expires_at),
        a.status === 'pending'
          ? h('div', { class: 'hint countdown' }, countdown(a.expires_at))
          : '',
      ),
      statusCell(a),
      decisionCell(a),
    );

  /** Puts `a` on the page: its row redrawn in place, or a new row in id (time) order. */
  function upsert(a: Approval): void {
    const before = known.get(a.id);
    // A stale pending copy (the list read before a decision came) never undoes the decision.
    if (before && before.status !== 'pending' && a.status === 'pending') return;
    known.set(a.id, a);
    if (a.status === 'pending') seenPending.add(a.id);
    const body = tableOf(a);
    const fresh = row(a);
    const existing = body.querySelector(`tr[data-id="${CSS.escape(a.id)}"]`);
    if (existing) {
      // Keep an open program open across the redraw.
      const open = existing.querySelector('details')?.open === true;
      if (open) fresh.querySelector('details')?.setAttribute('open', '');
      existing.replaceWith(fresh);
      return;
    }
    body.querySelector('td.empty')?.parentElement?.remove();
    const later = [...body.querySelectorAll<HTMLElement>('tr[data-id]')].find(
      (r) => (r.dataset.id ?? '') < a.id,
    );
    body.insertBefore(fresh, later ?? null);
    if (body === decided) {
      const rows = body.querySelectorAll('tr[data-id]');
      for (let i = DECIDED_SHOWN; i < rows.length; i++) rows[i]?.remove();
    }
  }

  const sayCount = () => {
    const n = [...known.values()].filter((a) => a.status === 'pending').length;
    say(n === 0 ? 'Nothing waits for a decision.' : `${n} waiting for a decision.`);
  };

  const load = async () => {
    const answer = await api('GET', '/approvals');
    if (answer.status !== 200) return say(errorText(answer), true);
    const items = answer.json.items as Approval[];
    let shownDecided = 0;
    for (const a of items) {
      if (a.status !== 'pending' && !seenPending.has(a.id) && shownDecided++ >= DECIDED_SHOWN)
        continue;
      upsert(a);
    }
    if (!pending.querySelector('tr[data-id]'))
      fillRows(pending, [], 'Nothing waits for a decision.');
    if (!decided.querySelector('tr[data-id]')) fillRows(decided, [], 'No decisions yet.');
    sayCount();
  };

  // The stream opens first, so nothing made between the list and the stream is missed;
  // events and the list meet in upsert, which keeps the newest state of each approval.
  const stream = new EventSource('/api/v1/approvals/stream');
  let connected = false;
  stream.addEventListener('approval', (event) => {
    upsert(JSON.parse((event as MessageEvent<string>).data) as Approval);
    sayCount();
  });
  stream.addEventListener('error', () => {
    byId('live').textContent = 'Live updates paused; reconnecting…';
  });
  stream.addEventListener('ready', () => {
    byId('live').textContent = 'Live: held calls and decisions appear here as they happen.';
    // After a reconnect, changes made while away are read again.
    if (connected) void load();
    connected = true;
  });
  await Promise.all([load(), inputSection()]);
  // A link to one approval (the Playground's, /ui/approvals#approval-ID): its row, in view.
  document.querySelector('tr.linked')?.scrollIntoView({ block: 'center' });

  window.setInterval(() => {
    for (const cell of document.querySelectorAll<HTMLElement>('td[data-expires]')) {
      const shown = cell.querySelector('.countdown');
      if (shown) shown.textContent = countdown(cell.dataset.expires ?? '');
    }
  }, TICK_MS);
}
