/** @module Source as the caller wrote it -> JavaScript for the engine, with a position map back. */

import type { Position } from './text-positions.ts';
import { type ParseFailure, rewriteTopLevelReturn } from './top-level-return.ts';
import { transpileTypeScript } from './transpile.ts';

export type Language = 'javascript' | 'typescript';

export type PreparedSource =
  | {
      ok: true;
      code: string;
      toOriginal: (p: Position) => Position;
      /** The parser's error when the code does not parse (the engine will refuse it too), positions mapped. */
      syntaxError?: ParseFailure;
    }
  | { ok: false; message: string; line?: number; column?: number };

const identity = (p: Position): Position => p;

/** Transpiles (TypeScript), rewrites top-level returns, and composes the position maps. */
export async function prepareSource(source: string, language: Language): Promise<PreparedSource> {
  let code = source;
  let fromTs = identity;
  if (language === 'typescript') {
    const ts = await transpileTypeScript(source);
    if (!ts.ok) return ts;
    code = ts.code;
    fromTs = ts.toOriginal ?? identity;
  }
  const rewritten = rewriteTopLevelReturn(code);
  const fromRewrite = rewritten.toOriginal ?? identity;
  const failure = rewritten.syntaxError;
  return {
    ok: true,
    code: rewritten.code,
    toOriginal: (p) => fromTs(fromRewrite(p)),
    ...(failure ? { syntaxError: { ...failure, ...fromTs(failure) } } : {}),
  };
}
