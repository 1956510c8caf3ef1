/** @module Upstream outcomes -> the two guest dialects' call envelopes. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CallOutcome, sizeVerdict } from '../upstream/index.ts';

export type SyncEnvelope =
  | { ok: true; result: CallToolResult }
  | { ok: false; error: { code: string; message: string }; result?: CallToolResult };

export type AsyncEnvelope =
  | { ok: true; data: unknown; meta: { omitted: number } }
  | { ok: false; error: { code: string; message: string; retryable: boolean } };

function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}

/**
 * An upstream result larger than `maxBytes` (as JSON) becomes a RESULT_TOO_LARGE failure
 * named `label`, so it never crosses into the sandbox; the JSON size is returned too, and the
 * result's JSON itself (`json`, when it is kept), so it is not encoded again.
 */
export function boundedOutcome(
  outcome: CallOutcome,
  maxBytes: number,
  label: string,
): { outcome: CallOutcome; bytes: number; json?: string } {
  if (!outcome.ok) return { outcome, bytes: 0 };
  const json = JSON.stringify(outcome.result);
  const bytes = Buffer.byteLength(json);
  const verdict = sizeVerdict(bytes, maxBytes);
  if (verdict.ok) return { outcome, bytes, json };
  return {
    outcome: { ok: false, code: verdict.code, message: `${label}: ${verdict.message}` },
    bytes: 0,
  };
}

/** A refusal or failure in the sync dialect (call_tool / call_tools). */
export function syncFailure(code: string, message: string): SyncEnvelope {
  return { ok: false, error: { code, message } };
}

/**
 * The sync dialect (MCPProxy's) has no timeout, output, size or not-found code of its own per
 * call: each is UPSTREAM_ERROR, its message naming what happened ("server not found: X").
 */
const SYNC_AS_UPSTREAM_ERROR: ReadonlySet<string> = new Set([
  'UPSTREAM_TIMEOUT',
  'INVALID_OUTPUT',
  'RESULT_TOO_LARGE',
  'SERVER_NOT_FOUND',
  'TOOL_NOT_FOUND',
]);

/** call_tool's envelope: an upstream `isError` result is TOOL_ERROR with the result kept. */
export function syncEnvelope(outcome: CallOutcome): SyncEnvelope {
  if (!outcome.ok) {
    const code = SYNC_AS_UPSTREAM_ERROR.has(outcome.code) ? 'UPSTREAM_ERROR' : outcome.code;
    return syncFailure(code, outcome.message);
  }
  const result = outcome.result;
  if (result.isError) {
    return {
      ok: false,
      error: { code: 'TOOL_ERROR', message: textOf(result) || 'the tool reported an error' },
      result,
    };
  }
  return { ok: true, result };
}

/**
 * JSON.stringify(envelope), given the JSON of its result (`resultJson`, from boundedOutcome):
 * the result, the bulk of it, is not encoded a second time. `result` is the envelope's last key.
 */
export function syncEnvelopeJson(envelope: SyncEnvelope, resultJson: string | undefined): string {
  if (resultJson === undefined || envelope.result === undefined) return JSON.stringify(envelope);
  const { result: _result, ...head } = envelope;
  return `${JSON.stringify(head).slice(0, -1)},"result":${resultJson}}`;
}

/** Arion's lowercase codes for the async dialect, with whether a retry can help. */
const ASYNC_CODES: Record<string, { code: string; retryable: boolean }> = {
  UPSTREAM_ERROR: { code: 'upstream_error', retryable: false },
  SERVER_NOT_FOUND: { code: 'tool_not_found', retryable: false },
  TOOL_NOT_FOUND: { code: 'tool_not_found', retryable: false },
  SERVER_UNAVAILABLE: { code: 'upstream_error', retryable: true },
  QUEUE_FULL: { code: 'overflow', retryable: true },
  UPSTREAM_TIMEOUT: { code: 'upstream_timeout', retryable: true },
  INVALID_OUTPUT: { code: 'invalid_output', retryable: false },
  RESULT_TOO_LARGE: { code: 'result_too_large', retryable: false },
  SERVER_NOT_ALLOWED: { code: 'access_denied', retryable: false },
  ACCESS_DENIED: { code: 'access_denied', retryable: false },
  TOOL_CHANGED: { code: 'access_denied', retryable: false },
  POLICY_DENIED: { code: 'access_denied', retryable: false },
  APPROVAL_DENIED: { code: 'access_denied', retryable: false },
  // Asking again holds the call again: a person may answer this time.
  APPROVAL_TIMEOUT: { code: 'upstream_timeout', retryable: true },
  MAX_TOOL_CALLS_EXCEEDED: { code: 'max_tool_calls_exceeded', retryable: false },
  INVALID_ARGS: { code: 'invalid_input', retryable: false },
};

export function asyncFailure(code: string, message: string): AsyncEnvelope {
  const mapped = ASYNC_CODES[code] ?? { code: code.toLowerCase(), retryable: false };
  return { ok: false, error: { code: mapped.code, message, retryable: mapped.retryable } };
}

/**
 * tools.*'s envelope: `data` is structuredContent, else the text blocks joined by newlines.
 * The envelope itself is held to `maxBytes` too (named `label` when over it).
 */
export function asyncEnvelope(
  outcome: CallOutcome,
  maxBytes: number,
  label: string,
): AsyncEnvelope {
  if (!outcome.ok) return asyncFailure(outcome.code, outcome.message);
  const result = outcome.result;
  const text = textOf(result);
  if (result.isError) {
    return {
      ok: false,
      error: {
        code: 'upstream_error',
        message: text || 'the tool reported an error',
        retryable: false,
      },
    };
  }
  const blocks = result.content ?? [];
  const omitted = blocks.filter((block) => block.type !== 'text').length;
  const data =
    result.structuredContent ?? (blocks.some((block) => block.type === 'text') ? text : null);
  const envelope: AsyncEnvelope = { ok: true, data, meta: { omitted } };
  const verdict = sizeVerdict(Buffer.byteLength(JSON.stringify(envelope)), maxBytes);
  return verdict.ok ? envelope : asyncFailure(verdict.code, `${label}: ${verdict.message}`);
}
