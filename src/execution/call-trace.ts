/**
 * @module One execution's call trace: an entry per call in the order the program made them
 * (calls finish in any order), with what the activity history keeps of each; entries still
 * open when the execution ends are closed as CANCELLED.
 */
import type { CallRequest } from '../sandbox/index.ts';
import { metrics } from '../telemetry/metrics.ts';
import { cutForActivity, cutJsonForActivity, cutText } from './activity/cut.ts';
import { activityStatus } from './activity/status.ts';
import type { ToolCallRecord } from './types.ts';

/**
 * Fills a reserved trace entry once: with the error code, or none for success. `answerJson`,
 * when given, is the answer's JSON (not encoded again for the history's cut).
 */
export type Finish = (
  started: number,
  answer: Answer,
  ended?: number,
  answerJson?: string,
  facts?: CallFacts,
) => void;

/** What the trace and the history record of a call beyond its answer. */
export interface CallFacts {
  /** The approval that let the call go out (tool_policy ask). */
  approvalId?: string;
  /** The contract's code, where the dialect's envelope says less (upstream_timeout for APPROVAL_TIMEOUT). */
  code?: string;
  /** Lines for the call's history: the input its server asked for and how it was answered (never a value). */
  notes?: readonly string[];
}

/** What the guest got for one call: an envelope of either dialect. */
type Answer = { ok: boolean; error?: { code: string; message: string } };

/** One call as the activity history records it: the trace entry plus what went and came back. */
export interface CallDetail {
  entry: ToolCallRecord;
  /** The arguments, redacted and cut as the history stores them (cutForActivity). */
  args: unknown;
  /** Epoch milliseconds when the program made the call. */
  startedAt: number;
  /**
   * `performance.now()` when the call's `duration_ms` began (for a batch element, when its lane
   * took it): where its bar starts on the execution's waterfall. Set when the entry is filled.
   */
  began?: number;
  message?: string;
  /** The envelope the guest received, cut as the history stores it. */
  response?: unknown;
  /** The approval that let the call go out (tool_policy ask). */
  approvalId?: string;
  /** The input its server asked for during the call, and how each request ended. */
  notes?: readonly string[];
}

/** Code of a trace entry whose call was still in flight when the execution ended. */
export const CANCELLED = 'CANCELLED';
const CANCELLED_MESSAGE =
  'the execution ended before this call answered; it was cancelled (a call already sent to its server gets notifications/cancelled)';

/** Counts a finished call in the metrics (telemetry/metrics.ts) with its history status; nothing is computed while they are off. */
function callEnded(entry: ToolCallRecord, message: string | undefined): void {
  const sink = metrics();
  if (sink.on)
    sink.toolCallEnded(
      entry.server,
      entry.tool,
      activityStatus(entry.code, message),
      entry.duration_ms,
    );
}

export class CallTrace {
  readonly toolCalls: ToolCallRecord[] = [];
  /** The same calls in the same order, with arguments and answers (for the activity history). */
  readonly calls: CallDetail[] = [];
  /** Trace entries reserved but not yet filled, with when they were reserved. */
  private readonly unfinished = new Map<ToolCallRecord, number>();

  constructor(private readonly redactKeys: readonly string[]) {}

  /**
   * Takes the call's place in the trace now, in the order the program made its calls, and
   * returns how to fill it when the call finishes (calls finish in any order).
   */
  reserve(request: CallRequest): Finish {
    const entry: ToolCallRecord = {
      server: request.server,
      tool: request.tool,
      ok: false,
      duration_ms: 0,
    };
    this.toolCalls.push(entry);
    // Kept cut (as the history stores them): a program making thousands of calls with large
    // arguments or answers must not hold them all in the gateway until it ends.
    const detail: CallDetail = {
      entry,
      args: cutForActivity(request.args, this.redactKeys),
      startedAt: Date.now(),
    };
    this.calls.push(detail);
    this.unfinished.set(entry, performance.now());
    return (started, answer, ended, answerJson, facts) => {
      if (!this.unfinished.delete(entry)) return;
      if (facts?.approvalId) detail.approvalId = facts.approvalId;
      detail.began = started;
      if (facts?.notes && facts.notes.length > 0) detail.notes = facts.notes;
      entry.ok = answer.ok;
      entry.duration_ms = Math.round(((ended ?? performance.now()) - started) * 100) / 100;
      if (answer.error) {
        entry.code = facts?.code ?? answer.error.code;
        detail.message = cutText(answer.error.message);
      }
      detail.response =
        answerJson === undefined ? cutForActivity(answer) : cutJsonForActivity(answer, answerJson);
      callEnded(entry, detail.message);
    };
  }

  /** Closes every entry still open as CANCELLED, so the trace no longer changes. Idempotent. */
  close(): void {
    const now = performance.now();
    for (const detail of this.calls) {
      const reserved = this.unfinished.get(detail.entry);
      if (reserved === undefined) continue;
      detail.message = CANCELLED_MESSAGE;
      detail.began = reserved;
    }
    for (const [entry, reserved] of this.unfinished) {
      entry.duration_ms = Math.round((now - reserved) * 100) / 100;
      entry.code = CANCELLED;
      callEnded(entry, CANCELLED_MESSAGE);
    }
    this.unfinished.clear();
  }
}
