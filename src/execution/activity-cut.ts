/** @module Keeps activity values small: JSON over ACTIVITY_VALUE_MAX_BYTES becomes its cut text with a marker. */

export const ACTIVITY_VALUE_MAX_BYTES = 8192;

/** The value itself when its JSON fits, else the first bytes of its JSON and a marker naming its size. */
export function cutForActivity(value: unknown): unknown {
  if (value === undefined) return null;
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch {
    return '…[not JSON]';
  }
  return cutJsonForActivity(value, text);
}

/** cutForActivity for a value whose JSON text the caller already has (`text` is JSON.stringify(value)). */
export function cutJsonForActivity(value: unknown, text: string): unknown {
  const bytes = Buffer.byteLength(text);
  if (bytes <= ACTIVITY_VALUE_MAX_BYTES) return value;
  // Cut on a character boundary: decode the prefix, dropping a split character.
  const head = Buffer.from(text).subarray(0, ACTIVITY_VALUE_MAX_BYTES).toString('utf8');
  return `${head.replace(/\uFFFD$/, '')}…[cut: ${bytes} bytes of JSON, first ${ACTIVITY_VALUE_MAX_BYTES} kept]`;
}
