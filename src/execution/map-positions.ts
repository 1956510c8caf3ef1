/** @module Rewrites engine positions (line, column, stack frames) to the source the caller wrote. */
import type { GuestError, ParseFailure, Position } from '../sandbox/index.ts';
import type { ErrorBody } from './types.ts';

/** A syntax error's message names its position: `... (line L, column C)`. */
const atPosition = (message: string, p: Position) =>
  `${message} (line ${p.line}, column ${p.column})`;

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
    if (error.code === 'SYNTAX_ERROR') body.message = atPosition(error.message, p);
  }
  return body;
}

/**
 * The engine stops at the first top-level `return` of a source that does not parse ("return not
 * in a function": the rewrite that allows such returns needs a source that parses). The parser's
 * error names the real mistake: it takes the engine's place.
 */
export function preferParserError(error: ErrorBody, parsed: ParseFailure | undefined): ErrorBody {
  if (!parsed || error.code !== 'SYNTAX_ERROR' || !/return not in a function/.test(error.message))
    return error;
  const { line, column } = parsed;
  return {
    code: 'SYNTAX_ERROR',
    message: atPosition(parsed.message, parsed),
    ...(error.stack !== undefined ? { stack: error.stack } : {}),
    line,
    column,
  };
}
