/** @module The REST status of an execution envelope: 200 for any program that ran, refusals by code. */
import type { Envelope } from '../execution/index.ts';

const REFUSAL_STATUS: Record<string, number> = {
  INVALID_REQUEST: 400,
  INVALID_OPTIONS: 400,
  INVALID_LANGUAGE: 400,
  INVALID_SCRIPT_NAME: 400,
  SCRIPT_UNUSABLE: 400,
  SCRIPT_NOT_FOUND: 404,
  FEATURE_DISABLED: 403,
  // code_execution_max_running runs are alive: nothing ran, try again once one ends.
  QUEUE_FULL: 429,
  EXECUTION_FAILED: 500,
};

/** The status of a refusal by its code; 200 for a code that is a program's own failure. */
export function refusalStatus(code: string): 200 | 400 | 403 | 404 | 429 | 500 {
  return (REFUSAL_STATUS[code] ?? 200) as 200 | 400 | 403 | 404 | 429 | 500;
}

export function statusFor(envelope: Envelope): 200 | 400 | 403 | 404 | 429 | 500 {
  return envelope.ok ? 200 : refusalStatus(envelope.error.code);
}
