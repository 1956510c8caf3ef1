/** @module Offsets <-> 1-based line/column in a text. */

export interface Position {
  line: number;
  column: number;
}

/** Start offset of each line of `text`. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function offsetOf(starts: readonly number[], position: Position): number {
  const start = starts[Math.min(Math.max(position.line, 1), starts.length) - 1] ?? 0;
  return start + Math.max(position.column - 1, 0);
}

export function positionOf(starts: readonly number[], offset: number): Position {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}
