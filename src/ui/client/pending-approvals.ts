/** @module Watching the pending approvals while a page's run is in flight (Try, the Playground). */
import { api } from './api.ts';

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
