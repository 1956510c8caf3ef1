/** @module CLI exit codes, as the API reference's CLI section fixes them. */
import type { Envelope } from '../execution/index.ts';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Refusals that mean the invocation itself was wrong (arguments or configuration). */
const USAGE_CODES = new Set([
  'INVALID_REQUEST',
  'INVALID_OPTIONS',
  'INVALID_LANGUAGE',
  'INVALID_SCRIPT_NAME',
  'FEATURE_DISABLED',
]);

export function exitCodeFor(envelope: Envelope): number {
  if (envelope.ok) return EXIT_OK;
  return USAGE_CODES.has(envelope.error.code) ? EXIT_USAGE : EXIT_FAILED;
}
