/**
 * @module JavaScript semantics for a program checked as JavaScript: what `checkJs` reports,
 * less what is plain, working JavaScript (`typeof` of a name that may not exist). Runs in the
 * checker's worker, on its AST.
 */
import type ts from 'typescript';
import { nodeAt } from './names.ts';

/** "Cannot find name 'x'" and its did-you-mean form. */
const CANNOT_FIND_NAME = new Set([2304, 2552]);

/**
 * True when diagnostic `d` of a JavaScript program is not a mistake in JavaScript: `typeof x`
 * of a name declared nowhere is how a program asks whether it exists, and evaluates to
 * "undefined" instead of throwing.
 */
export function legalInJavascript(t: typeof ts, sf: ts.SourceFile, d: ts.Diagnostic): boolean {
  if (!CANNOT_FIND_NAME.has(d.code) || d.start === undefined) return false;
  const node = nodeAt(t, sf, d.start);
  return !!node && t.isIdentifier(node) && !!node.parent && t.isTypeOfExpression(node.parent);
}
