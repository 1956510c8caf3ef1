/**
 * @module The arguments an approval shows: whole (key-sorted canonical JSON, secrets redacted) up
 * to APPROVAL_ARGS_SHOWN_MAX_BYTES; beyond, the top-level keys that fit, the others named as cut
 * and the whole JSON kept for `GET /api/v1/approvals/{id}/args`. Never a silent cut.
 */
import { canonicalJson } from '../../util/canonical-json.ts';
import { REDACTED } from '../activity/cut.ts';
import { secretKeysOf } from '../activity/redact.ts';

/** Most bytes of canonical JSON an approval shows in place; larger arguments are cut by key. */
export const APPROVAL_ARGS_SHOWN_MAX_BYTES = 64 * 1024;

export interface ShownArgs {
  /** What the approval shows: the whole arguments, or the top-level keys that fit. */
  args: Record<string, unknown>;
  /** The top-level keys left out of `args` (empty when nothing was cut). */
  cutKeys: string[];
  /** The whole redacted canonical JSON when something was cut, else null. */
  whole: string | null;
}

/** Redacts what `redactKeys` names, then shows the arguments whole or cut by key (sorted). */
export function shownArgs(
  args: Record<string, unknown>,
  redactKeys: readonly string[],
  maxBytes = APPROVAL_ARGS_SHOWN_MAX_BYTES,
): ShownArgs {
  const redacted = redactOnly(args, redactKeys);
  const whole = canonicalJson(redacted);
  const sorted = JSON.parse(whole) as Record<string, unknown>;
  if (Buffer.byteLength(whole) <= maxBytes) return { args: sorted, cutKeys: [], whole: null };
  const shown: Record<string, unknown> = {};
  const cutKeys: string[] = [];
  let bytes = 2;
  for (const [key, value] of Object.entries(sorted)) {
    const size = Buffer.byteLength(`${JSON.stringify(key)}:${canonicalJson(value)},`);
    if (bytes + size <= maxBytes) {
      shown[key] = value;
      bytes += size;
    } else {
      cutKeys.push(key);
    }
  }
  return { args: shown, cutKeys, whole };
}

/** The arguments with every value under a secret-looking key (any depth) replaced, as the history does. */
function redactOnly(args: Record<string, unknown>, redactKeys: readonly string[]): unknown {
  const secret = secretKeysOf(redactKeys);
  if (!secret) return args;
  return JSON.parse(
    JSON.stringify(args, function (this: unknown, key: string, v: unknown) {
      if (key === '' || Array.isArray(this) || v === undefined) return v;
      return secret(key) ? REDACTED : v;
    }),
  );
}
