/** @module Watching the pending approvals while a page's run is in flight (Try, the Playground). */
import { api } from './api.ts';
import { h, type Kid } from './dom.ts';

/** How often a run in flight looks for approvals its calls wait on. */
const APPROVAL_POLL_MS = 1000;

/** A pending approval as `GET /api/v1/approvals?status=pending` lists it (the fields pages use). */
export interface PendingApproval {
  id: string;
  server: string;
  tool: string;
  caller: string;
  created_at: string;
}

/** The id of an approval's row on the Approvals page: `/ui/approvals#approval-ID` links to it. */
export const approvalAnchor = (id: string): string => `approval-${id}`;

/** tool_policy.approval_channels when the page was made (`<main data-channels>`); all four when it does not say. */
function openChannels(): string[] {
  const said = document.getElementById('main')?.dataset.channels;
  return said === undefined ? ['elicitation', 'rest', 'dashboard', 'cli'] : said.split(' ');
}

/**
 * How a person may decide the approval `id` (undefined: not known yet), naming only the
 * channels tool_policy.approval_channels leaves open, with a link to it on the Approvals page:
 * "decide it on Approvals or with codemux approvals approve ID." by default.
 */
export function howToDecide(id: string | undefined): Kid[] {
  const channels = openChannels();
  const link = h('a', { href: `/ui/approvals${id ? `#${approvalAnchor(id)}` : ''}` }, 'Approvals');
  const cli = `codemux approvals approve ${id ?? 'ID'}`;
  if (channels.includes('dashboard')) {
    return ['decide it on ', link, channels.includes('cli') ? ` or with ${cli}.` : '.'];
  }
  const elsewhere = channels.includes('cli')
    ? `decide it with ${cli}.`
    : channels.includes('rest')
      ? `decide it with POST /api/v1/approvals/${id ?? 'ID'}/approve.`
      : 'nobody can decide it from here; it expires after tool_policy.approval_timeout_ms.';
  return [
    'it is shown on ',
    link,
    ' read only (tool_policy.approval_channels leaves out "dashboard"): ',
    elsewhere,
  ];
}

/**
 * Until the returned stop is called (or `onItems` returns true), hands `onItems` the pending
 * approvals once a second.
 */
export function watchPendingApprovals(onItems: (items: PendingApproval[]) => boolean): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const look = async () => {
    const answer = await api('GET', '/approvals?status=pending');
    if (stopped) return;
    const items = (answer.status === 200 ? answer.json.items : []) as PendingApproval[];
    if (onItems(items)) return;
    timer = setTimeout(look, APPROVAL_POLL_MS);
  };
  timer = setTimeout(look, APPROVAL_POLL_MS);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
