/** @module Text replacements that remember how to map positions back to the original. */
import { lineStarts, offsetOf, type Position, positionOf } from './text-positions.ts';

export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits; `toOriginal` maps a position in the result back. */
export function applyEdits(
  original: string,
  edits: readonly Edit[],
): { code: string; toOriginal: (p: Position) => Position } {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let code = '';
  let last = 0;
  // For each edit: where its replacement starts in the output.
  const outStarts: number[] = [];
  for (const edit of sorted) {
    code += original.slice(last, edit.start);
    outStarts.push(code.length);
    code += edit.text;
    last = edit.end;
  }
  code += original.slice(last);
  const originalStarts = lineStarts(original);
  const codeStarts = lineStarts(code);
  const toOriginal = (p: Position): Position => {
    const out = offsetOf(codeStarts, p);
    let delta = 0;
    for (let i = 0; i < sorted.length; i++) {
      const edit = sorted[i]!;
      const at = outStarts[i]!;
      if (out < at) break;
      if (out < at + edit.text.length) return positionOf(originalStarts, edit.start);
      delta = at + edit.text.length - edit.end;
    }
    return positionOf(originalStarts, Math.min(out - delta, original.length));
  };
  return { code, toOriginal };
}
