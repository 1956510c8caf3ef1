import { describe, expect, it } from 'vitest';
import { CALL_ERROR_CODES, type CallErrorCode } from '../errors/index.ts';
import { CALL_FAILURE_CODES, type CallFailureCode, type CallOutcome } from '../upstream/index.ts';
import { asyncEnvelope, asyncFailure, syncEnvelope, syncFailure } from './envelopes.ts';

type Seen = { code: string; retryable?: boolean };
/** What each guest sees for a call that failed with the code: code_execution's call_tool, execute's tools.*. */
type Row = { codeExecution: string; execute: Seen };

/**
 * Every code a call can fail with in the guest: the upstream's (CALL_FAILURE_CODES, internal
 * ones included) and the contract's (CALL_ERROR_CODES: refusals before dispatch, TOOL_ERROR).
 * The type makes a new code fail to compile until it has a row.
 */
const TABLE: Record<CallFailureCode | CallErrorCode, Row> = {
  TOOL_ERROR: {
    codeExecution: 'TOOL_ERROR',
    execute: { code: 'upstream_error', retryable: false },
  },
  UPSTREAM_ERROR: {
    codeExecution: 'UPSTREAM_ERROR',
    execute: { code: 'upstream_error', retryable: false },
  },
  SERVER_NOT_FOUND: {
    codeExecution: 'UPSTREAM_ERROR',
    execute: { code: 'tool_not_found', retryable: false },
  },
  TOOL_NOT_FOUND: {
    codeExecution: 'UPSTREAM_ERROR',
    execute: { code: 'tool_not_found', retryable: false },
  },
  SERVER_UNAVAILABLE: {
    codeExecution: 'SERVER_UNAVAILABLE',
    execute: { code: 'upstream_error', retryable: true },
  },
  QUEUE_FULL: { codeExecution: 'QUEUE_FULL', execute: { code: 'overflow', retryable: true } },
  UPSTREAM_TIMEOUT: {
    codeExecution: 'UPSTREAM_ERROR',
    execute: { code: 'upstream_timeout', retryable: true },
  },
  INVALID_OUTPUT: {
    codeExecution: 'UPSTREAM_ERROR',
    execute: { code: 'invalid_output', retryable: false },
  },
  RESULT_TOO_LARGE: {
    codeExecution: 'UPSTREAM_ERROR',
    execute: { code: 'result_too_large', retryable: false },
  },
  TOOL_CHANGED: {
    codeExecution: 'TOOL_CHANGED',
    execute: { code: 'access_denied', retryable: false },
  },
  ACCESS_DENIED: {
    codeExecution: 'ACCESS_DENIED',
    execute: { code: 'access_denied', retryable: false },
  },
  POLICY_DENIED: {
    codeExecution: 'POLICY_DENIED',
    execute: { code: 'access_denied', retryable: false },
  },
  APPROVAL_DENIED: {
    codeExecution: 'APPROVAL_DENIED',
    execute: { code: 'access_denied', retryable: false },
  },
  APPROVAL_TIMEOUT: {
    codeExecution: 'APPROVAL_TIMEOUT',
    execute: { code: 'upstream_timeout', retryable: true },
  },
  SERVER_NOT_ALLOWED: {
    codeExecution: 'SERVER_NOT_ALLOWED',
    execute: { code: 'access_denied', retryable: false },
  },
  MAX_TOOL_CALLS_EXCEEDED: {
    codeExecution: 'MAX_TOOL_CALLS_EXCEEDED',
    execute: { code: 'max_tool_calls_exceeded', retryable: false },
  },
  INVALID_ARGS: {
    codeExecution: 'INVALID_ARGS',
    execute: { code: 'invalid_input', retryable: false },
  },
};

const MESSAGE = 'fixture.echo: what happened';
const upstream = new Set<string>(CALL_FAILURE_CODES);
const refusals = CALL_ERROR_CODES.filter((code) => code !== 'TOOL_ERROR');

/** The outcome the call gate hands the envelopes for `code`: TOOL_ERROR is an isError result. */
function outcomeOf(code: string): CallOutcome {
  if (code === 'TOOL_ERROR') {
    return { ok: true, result: { content: [{ type: 'text', text: MESSAGE }], isError: true } };
  }
  return { ok: false, code: code as CallFailureCode, message: MESSAGE };
}

describe('every call error code in both guest dialects', () => {
  it('has a row for each code a call can fail with, and no other', () => {
    const codes = new Set<string>([...CALL_FAILURE_CODES, ...CALL_ERROR_CODES]);
    expect(Object.keys(TABLE).sort()).toEqual([...codes].sort());
  });

  it.each(Object.entries(TABLE))('%s', (code, row) => {
    if (upstream.has(code) || code === 'TOOL_ERROR') {
      const outcome = outcomeOf(code);
      expect(syncEnvelope(outcome)).toMatchObject({
        ok: false,
        error: { code: row.codeExecution, message: MESSAGE },
      });
      expect(asyncEnvelope(outcome, 1 << 20, 'fixture.echo')).toEqual({
        ok: false,
        error: { ...row.execute, message: MESSAGE },
      });
    }
    // A refusal before dispatch: the call gate writes it in the dialect directly.
    if ((refusals as readonly string[]).includes(code)) {
      expect(syncFailure(code, MESSAGE)).toEqual({
        ok: false,
        error: { code: row.codeExecution, message: MESSAGE },
      });
      expect(asyncFailure(code, MESSAGE)).toEqual({
        ok: false,
        error: { ...row.execute, message: MESSAGE },
      });
    }
  });
});
