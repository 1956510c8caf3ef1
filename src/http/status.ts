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
  EXECUTION_FAILED: 500,
};

export function statusFor(envelope: Envelope): 200 | 400 | 403 | 404 | 500 {
  if (envelope.ok) return 200;
  return (REFUSAL_STATUS[envelope.error.code] ?? 200) as 200 | 400 | 403 | 404 | 500;
}
