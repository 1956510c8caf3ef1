/**
 * @module Bounds on what an upstream sends, checked without recursion: a value nested
 * 100,000 levels deep would overflow the stack of JSON.stringify, zod or ajv (and end the
 * gateway), so depth and size are measured by an iterative walk that stops at the bound.
 */

export type BoundsVerdict =
  | { ok: true; bytes: number }
  | { ok: false; code: 'INVALID_OUTPUT' | 'RESULT_TOO_LARGE'; message: string };

/** UTF-8 bytes of `text` as a JSON string literal (escapes and quotes included). */
function stringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/**
 * The exact size of `JSON.stringify(value)` in UTF-8 bytes for a value that came from
 * JSON.parse, unless it is deeper than `maxDepth` or larger than `maxBytes` (the walk stops
 * there). The value itself is one level; each array or object inside it adds one.
 */
export function measureJson(value: unknown, maxDepth: number, maxBytes: number): BoundsVerdict {
  let bytes = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v === 'string') bytes += stringBytes(v);
    else if (typeof v === 'number') bytes += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === 'boolean') bytes += v ? 4 : 5;
    else if (v === null || typeof v !== 'object') bytes += 4;
    else {
      if (depth + 1 > maxDepth) {
        return {
          ok: false,
          code: 'INVALID_OUTPUT',
          message: `result too deep (more than ${maxDepth} levels)`,
        };
      }
      if (Array.isArray(v)) {
        bytes += 2 + Math.max(0, v.length - 1);
        for (const item of v) stack.push({ value: item, depth: depth + 1 });
      } else {
        const keys = Object.keys(v);
        bytes += 2 + Math.max(0, keys.length - 1);
        for (const key of keys) {
          bytes += stringBytes(key) + 1;
          stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1 });
        }
      }
    }
    if (bytes > maxBytes) return tooLarge(`more than ${maxBytes} bytes`);
  }
  return { ok: true, bytes };
}

function tooLarge(detail: string): BoundsVerdict {
  return { ok: false, code: 'RESULT_TOO_LARGE', message: `result too large (${detail})` };
}

/** A result of `bytes` against the bound `maxBytes` (what one call may bring into the sandbox). */
export function sizeVerdict(bytes: number, maxBytes: number): BoundsVerdict {
  return bytes > maxBytes ? tooLarge(`${bytes} bytes, at most ${maxBytes}`) : { ok: true, bytes };
}
