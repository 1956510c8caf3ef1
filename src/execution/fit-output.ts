/**
 * @module Keeps an answer within its output cap when the guest controls the size of an
 * error message, a stack or the logs: texts are cut with a marker that says how much was
 * there and how much was kept (`… [cut: 5242880 bytes -> 1000 bytes]`).
 */
import type { Envelope, ErrorBody, ExecutionResult } from './types.ts';

/** Bytes of `value` as JSON text (what the answer carries). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** Bytes a string adds inside JSON, quotes excluded (escapes counted). */
const inJson = (text: string): number => jsonBytes(text) - 2;

const marker = (from: number, to: number) => `… [cut: ${from} bytes -> ${to} bytes]`;

/**
 * `text` cut so that it takes at most `maxJsonBytes` inside JSON, marker included; never
 * inside a character. Returns `text` itself when it already fits.
 */
export function cutText(text: string, maxJsonBytes: number): string {
  if (inJson(text) <= maxJsonBytes) return text;
  const from = Buffer.byteLength(text);
  const room = maxJsonBytes - inJson(marker(from, maxJsonBytes));
  if (room <= 0) return '';
  // Every character takes at least one byte in JSON: no more than `room` characters fit.
  const head = text.slice(0, room);
  let lo = 0;
  let hi = head.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (inJson(head.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  // Do not leave half of a surrogate pair.
  const code = head.charCodeAt(lo - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? lo - 1 : lo;
  const kept = head.slice(0, end);
  return kept + marker(from, Buffer.byteLength(kept));
}

/** `logs` with lines dropped from the end until they take at most `maxJsonBytes`, and a line saying so. */
function cutLogs(logs: string[], maxJsonBytes: number): string[] {
  if (jsonBytes(logs) <= maxJsonBytes) return logs;
  const note = (kept: number) => `… [cut: ${logs.length - kept} of ${logs.length} log lines]`;
  // `[` + lines joined by commas + the note + `]`, counted without re-encoding the array.
  const sizes = logs.map(jsonBytes);
  let kept = logs.length;
  let total = 2 + sizes.reduce((a, b) => a + b, 0) + kept;
  while (kept > 0 && total + jsonBytes(note(kept)) > maxJsonBytes) {
    kept--;
    total -= sizes[kept]! + 1;
  }
  const out = [...logs.slice(0, kept), note(kept)];
  return jsonBytes(out) <= maxJsonBytes ? out : [];
}

/**
 * The envelope with its error message, stack and logs cut so that its JSON text takes at
 * most `maxBytes`. The error's message keeps at least half of the room, then the stack a
 * quarter, then the logs the rest; a successful value (already within the cap) is never
 * cut, only the logs beside it.
 */
export function fitEnvelope(envelope: Envelope, maxBytes: number): Envelope {
  if (jsonBytes(envelope) <= maxBytes) return envelope;
  const logs = envelope.logs ?? [];
  if (envelope.ok) {
    const frame = jsonBytes({ ...envelope, logs: [] });
    const fitted = cutLogs(logs, Math.max(0, maxBytes - frame + 2));
    return fitted.length > 0 ? { ...envelope, logs: fitted } : { ok: true, value: envelope.value };
  }
  const error = envelope.error;
  const bare: ErrorBody = {
    ...error,
    message: '',
    ...(error.stack !== undefined ? { stack: '' } : {}),
  };
  const frame = jsonBytes({ ok: false, error: bare, ...(envelope.logs ? { logs: [] } : {}) });
  let room = Math.max(0, maxBytes - frame);
  const stack = error.stack ?? '';
  const logBytes = envelope.logs ? jsonBytes(logs) - 2 : 0;
  // Each part first gets its share; what a part does not need is left to the next ones.
  const message = cutText(
    error.message,
    Math.max(room - inJson(stack) - logBytes, Math.floor(room / 2)),
  );
  room -= inJson(message);
  const cutStack = cutText(stack, Math.max(room - logBytes, Math.floor(room / 2)));
  room -= inJson(cutStack);
  const body: ErrorBody = {
    ...error,
    message,
    ...(error.stack !== undefined ? { stack: cutStack } : {}),
  };
  if (!envelope.logs) return { ok: false, error: body };
  const fitted = cutLogs(logs, room + 2);
  return { ok: false, error: body, ...(fitted.length > 0 ? { logs: fitted } : {}) };
}

/** What a successful value over the output bound becomes (the worker's own words). */
export function outputTooLarge(maxBytes: number): ErrorBody {
  return {
    code: 'OUTPUT_TOO_LARGE',
    message: `The result is larger than code_execution_max_output_bytes (${maxBytes} bytes); return less data`,
    stack: '',
  };
}

type Answer = Pick<ExecutionResult, 'envelope' | 'toolCalls' | 'stats'>;

/** What the answer adds beside the envelope: `{tool_calls, stats, activity_id}`. */
const extras = (answer: Answer, toolCalls: Answer['toolCalls'], activityId?: string) => ({
  tool_calls: toolCalls,
  stats: answer.stats,
  ...(activityId ? { activity_id: activityId } : {}),
});

/**
 * Bytes of the answer's largest rendering, code_execution's `structuredContent`: the JSON of
 * `{...envelope, tool_calls, stats, activity_id}`. Every other rendering of the same result
 * is smaller (`content[0].text` is the envelope alone; the REST body leaves out tool_calls
 * and stats; a code tool's result leaves out logs, tool_calls and stats).
 */
export function answerBytes(answer: Answer, activityId?: string): number {
  // Two objects merged: one pair of braces less, one comma more.
  return jsonBytes(answer.envelope) + jsonBytes(extras(answer, answer.toolCalls, activityId)) - 1;
}

/**
 * The answer fitted to `maxBytes` as answerBytes measures it (activity_id included): the
 * type check's diagnostics are set aside and get what room is left at the end; the
 * envelope is fitted first as if the trace were empty (fitEnvelope; a value that does not fit
 * with its frame becomes OUTPUT_TOO_LARGE), then trace entries are kept from the start while
 * they fit. `stats.tool_calls` still counts every call.
 */
export function fitAnswer(
  answer: Answer,
  maxBytes: number,
  activityId?: string,
): Pick<ExecutionResult, 'envelope' | 'toolCalls'> {
  if (answerBytes(answer, activityId) <= maxBytes) return answer;
  const { diagnostics, ...envelope } = answer.envelope;
  const fitted = fitWithout({ ...answer, envelope: envelope as Envelope }, maxBytes, activityId);
  if (!diagnostics) return fitted;
  // The type check's findings take only what is left: they never cost the value its place.
  const left = maxBytes - answerBytes({ ...answer, ...fitted }, activityId);
  const kept = diagnosticsWithin(diagnostics, left - DIAGNOSTICS_FIELD_BYTES);
  return kept.length > 0
    ? { ...fitted, envelope: { ...fitted.envelope, diagnostics: kept } }
    : fitted;
}

/** Bytes `,"diagnostics":` adds besides the array itself. */
const DIAGNOSTICS_FIELD_BYTES = jsonBytes({ diagnostics: [] }) - 2 - 1;

/**
 * The first diagnostics whose JSON array takes at most `maxJsonBytes`, each whole (none when
 * not even one fits).
 */
export function diagnosticsWithin<T>(diagnostics: T[], maxJsonBytes: number): T[] {
  let used = 2;
  let kept = 0;
  for (const d of diagnostics) {
    used += jsonBytes(d) + (kept > 0 ? 1 : 0);
    if (used > maxJsonBytes) break;
    kept++;
  }
  return kept === diagnostics.length ? diagnostics : diagnostics.slice(0, kept);
}

/** fitAnswer for an envelope without diagnostics. */
function fitWithout(
  answer: Answer,
  maxBytes: number,
  activityId?: string,
): Pick<ExecutionResult, 'envelope' | 'toolCalls'> {
  if (answerBytes(answer, activityId) <= maxBytes) return answer;
  const frame = jsonBytes(extras(answer, [], activityId)) - 1;
  const room = Math.max(0, maxBytes - frame);
  let envelope = fitEnvelope(answer.envelope, room);
  if (envelope.ok && jsonBytes(envelope) > room) {
    const logs = answer.envelope.logs;
    envelope = fitEnvelope(
      { ok: false, error: outputTooLarge(maxBytes), ...(logs ? { logs } : {}) },
      room,
    );
  }
  let used = jsonBytes(envelope) + frame;
  const toolCalls: Answer['toolCalls'] = [];
  for (const call of answer.toolCalls) {
    const size = jsonBytes(call) + (toolCalls.length > 0 ? 1 : 0);
    if (used + size > maxBytes) break;
    toolCalls.push(call);
    used += size;
  }
  return { envelope, toolCalls };
}
