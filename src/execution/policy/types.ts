/** @module The contract of tool policy and approvals: what surfaces ask of the approval desk, and what a caller's channel offers. */
import type { ApprovalRecord, ApprovalStatus } from '../../store/index.ts';
import type { InputChannel } from './input-requests.ts';

/** A person's answer to one approval. */
export type Decision = 'approve' | 'deny';

/** Why a decision was not taken, with the HTTP status REST answers it with. */
export interface DecisionRefusal {
  ok: false;
  /** 404 unknown id, 409 decided already or a digest that does not match, 410 expired. */
  status: 404 | 409 | 410;
  code: 'APPROVAL_NOT_FOUND' | 'APPROVAL_DECIDED' | 'APPROVAL_EXPIRED' | 'ARGS_MISMATCH';
  message: string;
  /** The approval as it stands (absent for an unknown id). */
  approval?: ApprovalRecord;
}

export type DecisionAnswer = { ok: true; approval: ApprovalRecord } | DecisionRefusal;

/**
 * What every decision channel uses (REST, the dashboard, the CLI through REST): list, read,
 * decide, and hear every change. Callers must be the administrator: agent tokens never reach it.
 */
export interface ApprovalDesk {
  /** Newest first (at most 500); only `status` when given. */
  list(status?: ApprovalStatus): Promise<ApprovalRecord[]>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** The whole arguments' JSON of a cut approval (`args_truncated`); null when not cut; undefined: unknown id. */
  wholeArgs(id: string): Promise<string | null | undefined>;
  /**
   * Decides a pending approval; the first decision wins on any instance. `argsSha256`, when
   * given, must be the approval's digest: a decision is bound to the arguments it was shown.
   */
  decide(
    id: string,
    decision: Decision,
    decidedBy: string,
    argsSha256?: string,
  ): Promise<DecisionAnswer>;
  /** Calls `listener` on every change (created, decided, expired), here or on another instance. */
  subscribe(listener: (approval: ApprovalRecord) => void): () => void;
  /** Approvals pending on this instance. */
  readonly pendingCount: number;
}

/**
 * What the surface a request came through offers while one of its calls waits for a decision
 * (all optional): ask the caller directly (MCP elicitation, a terminal), and keep it informed.
 */
export interface CallerChannel {
  /**
   * Asks the caller's own client or terminal. Resolves the answer, or undefined when this
   * channel cannot decide (not supported, the client failed): the other channels still can.
   * `by` names who answered, as the approval's `decided_by` records it.
   */
  ask?(
    approval: ApprovalRecord,
    signal: AbortSignal,
  ): Promise<{ decision: Decision; by: string } | undefined>;
  /**
   * Relays an upstream's request for input to the caller's own client (MCP elicitation),
   * naming the server; its answer is one among the other channels'.
   */
  askInput?: InputChannel;
  /** A line of progress while the call waits (MCP progress notifications). */
  progress?(message: string): void;
}
