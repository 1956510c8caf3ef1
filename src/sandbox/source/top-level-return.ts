/**
 * @module Top-level `return` (Arion style) beside completion values (MCPProxy style):
 * the program is wrapped in a labeled block and each top-level `return X` becomes
 * `{ (X); break <label>; }`, so the script's completion value is X when it returns and
 * the last statement's value otherwise. Top-level await keeps working (the engine
 * evaluates scripts asynchronously).
 */

import type { Node, ReturnStatement } from 'acorn';
import { parse } from 'acorn';
import { recursive } from 'acorn-walk';
import { applyEdits, type Edit } from './source-edits.ts';
import type { Position } from './text-positions.ts';

const LABEL = '__codemux_program__';
const MAYBE_RETURN = /\breturn\b/;

function topLevelReturns(program: Node): ReturnStatement[] {
  const found: ReturnStatement[] = [];
  const skip = () => {};
  recursive(program, undefined, {
    ReturnStatement(node) {
      found.push(node as ReturnStatement);
    },
    FunctionDeclaration: skip,
    FunctionExpression: skip,
    ArrowFunctionExpression: skip,
    ClassDeclaration: skip,
    ClassExpression: skip,
  });
  return found;
}

/** A syntax error the parser found, at its position in the code it was given. */
export interface ParseFailure extends Position {
  message: string;
}

/** Acorn's error without the `(line:column)` it appends to its message. */
function parseFailure(error: unknown): ParseFailure | undefined {
  const { message, loc } = error as { message?: unknown; loc?: { line: number; column: number } };
  if (!(error instanceof SyntaxError) || typeof message !== 'string' || !loc) return undefined;
  return {
    message: `SyntaxError: ${message.replace(/ \(\d+:\d+\)$/, '')}`,
    line: loc.line,
    column: loc.column + 1,
  };
}

/**
 * Rewrites top-level returns; identity (no cost) when the program has none. A program that
 * does not parse is left as it is, with the parser's error: the engine, meeting a top-level
 * `return` before the real mistake, would report "return not in a function" instead.
 */
export function rewriteTopLevelReturn(code: string): {
  code: string;
  toOriginal?: (p: Position) => Position;
  syntaxError?: ParseFailure;
} {
  if (!MAYBE_RETURN.test(code)) return { code };
  let program: Node;
  try {
    program = parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      allowHashBang: true,
    });
  } catch (error) {
    // Not parseable: the engine reports the syntax error, unless it stops at a top-level return.
    const syntaxError = parseFailure(error);
    return syntaxError ? { code, syntaxError } : { code };
  }
  const returns = topLevelReturns(program);
  if (returns.length === 0) return { code };
  const edits: Edit[] = [{ start: 0, end: 0, text: `${LABEL}:{\n` }];
  for (const node of returns) {
    const arg = node.argument;
    if (arg) {
      // Two edits around the argument, so positions inside it map back exactly.
      edits.push({ start: node.start, end: arg.start, text: '{(' });
      edits.push({ start: arg.end, end: node.end, text: `);break ${LABEL};}` });
    } else {
      edits.push({ start: node.start, end: node.end, text: `{(void 0);break ${LABEL};}` });
    }
  }
  edits.push({ start: code.length, end: code.length, text: '\n}' });
  return applyEdits(code, edits);
}
