/** @module The Approvals page's shell: pending calls held by tool_policy, recent decisions, and upstreams' requests for input; the client fills it live. */
import { RowsTable } from './shell-pieces.tsx';

/** Columns of both approvals tables: a pending one's row keeps its place once decided. */
const APPROVAL_COLUMNS = [
  'Requested',
  'Server',
  'Tool',
  'Arguments and program',
  'Caller',
  'Reason',
  'Expires',
  'Status',
];

function ApprovalsTable({ label, body }: { label: string; body: string }) {
  return (
    <RowsTable
      label={label}
      columns={APPROVAL_COLUMNS}
      body={body}
      hidden="Decision"
      class="approvals"
    />
  );
}

/**
 * The Approvals page; `closed` says why the dashboard may not decide (tool_policy.approval_channels
 * leaves it out): then the page shows the calls without Approve and Deny, and says so.
 */
export function ApprovalsBody({ closed }: { closed?: string }) {
  return (
    <>
      <h1>Approvals</h1>
      <p class="hint" id="live">
        Calls that tool_policy holds for a person appear here as they are made.
      </p>
      <p class="notice" id="channel-off" role="note" hidden={closed === undefined}>
        {closed === undefined ? '' : `Read only: ${closed}.`}
      </p>
      <section aria-labelledby="pending-title">
        <h2 id="pending-title">Pending</h2>
        <p class="hint">
          A call decided here or elsewhere keeps its row, with its new status, until the page is
          reloaded.
        </p>
        <ApprovalsTable label="Pending approvals" body="pending" />
      </section>
      <section aria-labelledby="decided-title">
        <h2 id="decided-title">Recently decided</h2>
        <ApprovalsTable label="Decided approvals" body="decided" />
      </section>
      <section aria-labelledby="input-title">
        <h2 id="input-title">Input</h2>
        <p class="hint">
          Upstream servers that ask for input in the middle of a call (MCP elicitation) wait here
          until someone answers or declines. The answer goes to the server and is not kept.
        </p>
        <ul class="inputs" id="inputs" aria-label="Input requests"></ul>
      </section>
    </>
  );
}
