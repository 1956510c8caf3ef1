/** @module Rewrites engine positions (line, column, stack frames) to the source the caller wrote. */
import type { GuestError, Position } from '../sandbox/index.ts';
import type { ErrorBody } from './types.ts';

/** Maps an engine error's positions through `toOriginal`; frames of other files stay as they are. */
export function mapGuestError(
  error: GuestError,
  filename: string,
  toOriginal: (p: Position) => Position,
): ErrorBody {
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.stack !== undefined) {
    const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const frame = new RegExp(`${escaped}:(\\d+):(\\d+)`, 'g');
    body.stack = error.stack.replace(frame, (_m, line: string, column: string) => {
      const p = toOriginal({ line: Number(line), column: Number(column) });
      return `${filename}:${p.line}:${p.column}`;
    });
  }
  if (error.line !== undefined && error.column !== undefined) {
    const p = toOriginal({ line: error.line, column: error.column });
    body.line = p.line;
    body.column = p.column;
    if (error.code === 'SYNTAX_ERROR')
      body.message = `${error.message} (line ${p.line}, column ${p.column})`;
  }
  return body;
}
