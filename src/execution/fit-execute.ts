/**
 * @module Keeps an `execute` result within code_mode.max_output_bytes, counting every byte the
 * MCP answer carries: the JSON of `structuredContent` (the result and its `activity_id`) plus
 * the JSON of `_meta` (`{"codemux/codemodeTruncation": {logsOmitted, toolCallsOmitted}}`, present
 * once anything was left out). `content[0].text` is the result alone, so it fits too.
 */
import type { Diagnostic, ExecuteOutcome, ExecuteResult } from './execute-result.ts';
import { cutText, diagnosticsWithin, jsonBytes } from './fit-output.ts';

type Truncation = NonNullable<ExecuteOutcome['truncation']>;

/** Bytes `activity_id` adds to structuredContent: `,"activity_id":"..."`. */
const idBytes = (activityId?: string) =>
  activityId ? jsonBytes({ activity_id: activityId }) - 1 : 0;

/** Bytes of the `_meta` object that reports what was left out. */
export const truncationBytes = (truncation: Truncation): number =>
  jsonBytes({ 'codemux/codemodeTruncation': truncation });

/** What fitExecuteResult measures: structuredContent's JSON plus `_meta`'s when present. */
export function executeAnswerBytes(outcome: ExecuteOutcome, activityId?: string): number {
  const meta = outcome.truncation ? truncationBytes(outcome.truncation) : 0;
  return jsonBytes(outcome.result) + idBytes(activityId) + meta;
}

/** Bytes an array loses when its last element (of `size` bytes) is removed, leaving `left`. */
const popBytes = (size: number, left: number) => size + (left > 0 ? 1 : 0);

/**
 * Keeps `result` and drops trace entries, then logs, from the end until the whole answer
 * fits (as executeAnswerBytes measures it). A failure's message (guest-controlled: a thrown
 * 5 MB string) is first cut to at most half of the room, more when the trace and logs need
 * less. A result that cannot fit even alone becomes a ResourceLimitExceeded failure.
 */
export function fitExecuteResult(
  whole: ExecuteResult,
  maxBytes: number,
  activityId?: string,
): ExecuteOutcome {
  const id = idBytes(activityId);
  if (jsonBytes(whole) + id <= maxBytes) return { result: whole };
  // The type check's findings (after the error, if any) take only what is left at the end.
  const first = whole.error ? 1 : 0;
  const findings = whole.diagnostics.slice(first);
  const result = { ...whole, diagnostics: whole.diagnostics.slice(0, first) };
  const withFindings = (fitted: ExecuteResult, left: number): ExecuteResult => {
    // Appended to `[error]` each costs a comma more than inside a list of its own.
    const kept = diagnosticsWithin(findings, left + 2 - first);
    return kept.length > 0 ? { ...fitted, diagnostics: [...fitted.diagnostics, ...kept] } : fitted;
  };
  const trimmed = { ...result, toolCalls: [...result.toolCalls], logs: [...result.logs] };
  // The largest `_meta` this answer can need: everything omitted.
  const worstMeta = truncationBytes({
    logsOmitted: result.logs.length,
    toolCallsOmitted: result.toolCalls.length,
  });
  const d = result.error;
  if (d) {
    const blank = { ...d, message: '' };
    const frame = jsonBytes({
      ...trimmed,
      error: blank,
      diagnostics: [blank],
      logs: [],
      toolCalls: [],
    });
    const room = Math.max(0, maxBytes - frame - id - worstMeta);
    const rest = jsonBytes(result.logs) + jsonBytes(result.toolCalls) - 4;
    // The message is in the answer twice: as `error` and as `diagnostics[0]`.
    const share = Math.floor(Math.max(room - rest, room / 2) / 2);
    const cut: Diagnostic = { ...d, message: cutText(d.message, share) };
    trimmed.error = cut;
    trimmed.diagnostics = [cut];
  }
  const truncation: Truncation = { logsOmitted: 0, toolCallsOmitted: 0 };
  // Sizes measured once: each removal subtracts its entry (and a comma), not a new stringify.
  let total = jsonBytes(trimmed) + id;
  const over = () => total + truncationBytes(truncation) > maxBytes;
  const callSizes = trimmed.toolCalls.map(jsonBytes);
  while (over() && trimmed.toolCalls.length > 0) {
    trimmed.toolCalls.pop();
    total -= popBytes(callSizes[trimmed.toolCalls.length]!, trimmed.toolCalls.length);
    truncation.toolCallsOmitted++;
  }
  const logSizes = trimmed.logs.map(jsonBytes);
  while (over() && trimmed.logs.length > 0) {
    trimmed.logs.pop();
    total -= popBytes(logSizes[trimmed.logs.length]!, trimmed.logs.length);
    truncation.logsOmitted++;
  }
  if (!over()) {
    return {
      result: withFindings(trimmed, maxBytes - total - truncationBytes(truncation)),
      truncation,
    };
  }
  const alone: Diagnostic = {
    kind: 'ResourceLimitExceeded',
    message: `result size limit exceeded: the result with its frame (status, activity_id) is larger than code_mode.max_output_bytes (${maxBytes} bytes)`,
  };
  return {
    result: {
      status: 'error',
      result: null,
      error: alone,
      diagnostics: [alone],
      logs: [],
      toolCalls: [],
    },
    truncation: { logsOmitted: result.logs.length, toolCallsOmitted: result.toolCalls.length },
  };
}
