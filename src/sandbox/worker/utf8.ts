/** @module Byte-bounded string cutting for log lines (worker side). */

const encoder = new TextEncoder();

/** Cuts `text` to at most `maxBytes` UTF-8 bytes, marker included, never inside a character. */
export function cutToBytes(text: string, maxBytes: number, marker: string): string {
  if (text.length <= maxBytes / 3 || encoder.encode(text).length <= maxBytes) return text;
  const budget = maxBytes - encoder.encode(marker).length;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = encoder.encode(char).length;
    if (bytes + size > budget) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end) + marker;
}
