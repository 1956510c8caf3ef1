/**
 * @module Keeps activity values small: JSON over ACTIVITY_VALUE_MAX_BYTES becomes its cut text
 * with a marker, text over its bound its first bytes with a marker; keys that look secret are
 * replaced before anything is measured.
 */
import { secretKeysOf } from './redact.ts';

export const ACTIVITY_VALUE_MAX_BYTES = 8192;
/** What replaces a value under a secret-looking key (activity_redact_keys). */
export const REDACTED = '[redacted]';

/** The first `maxBytes` of `text` in UTF-8, never splitting a character. */
export function utf8Head(text: string, maxBytes: number): string {
  // Cut on a character boundary: decode the prefix, dropping a split character.
  return Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/** `text` itself when it fits in `maxBytes` of UTF-8, else its first bytes and a marker naming its size. */
export function cutText(text: string, maxBytes = ACTIVITY_VALUE_MAX_BYTES): string {
  // Most texts are short: a UTF-8 character takes at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  return `${utf8Head(text, maxBytes)}…[cut: ${bytes} bytes, first ${maxBytes} kept]`;
}

/**
 * The value itself when its JSON fits, else the first bytes of its JSON and a marker naming its
 * size. A value under a key that looks like one of `redactKeys` (at any depth) becomes REDACTED
 * first.
 */
export function cutForActivity(value: unknown, redactKeys: readonly string[] = []): unknown {
  if (value === undefined) return null;
  const secret = secretKeysOf(redactKeys);
  let redacted = false;
  const replacer = secret
    ? function (this: unknown, key: string, v: unknown) {
        if (key === '' || Array.isArray(this) || v === undefined || typeof v === 'function')
          return v;
        if (!secret(key)) return v;
        redacted = true;
        return REDACTED;
      }
    : undefined;
  let text: string;
  try {
    text = JSON.stringify(value, replacer) ?? 'null';
  } catch {
    return '…[not JSON]';
  }
  const cut = cutJsonForActivity(value, text);
  // The redacted copy is built only when it is kept whole.
  return redacted && cut === value ? JSON.parse(text) : cut;
}

/**
 * cutForActivity without redaction, for a value whose JSON text the caller already has
 * (`text` is JSON.stringify(value)).
 */
export function cutJsonForActivity(value: unknown, text: string): unknown {
  const bytes = Buffer.byteLength(text);
  if (bytes <= ACTIVITY_VALUE_MAX_BYTES) return value;
  return `${utf8Head(text, ACTIVITY_VALUE_MAX_BYTES)}…[cut: ${bytes} bytes of JSON, first ${ACTIVITY_VALUE_MAX_BYTES} kept]`;
}
