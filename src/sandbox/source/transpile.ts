/**
 * @module TypeScript -> JavaScript. Strip-only first (types become spaces, every line and
 * column stays); enums and namespaces need a real transform, whose source map carries
 * positions back.
 */
import { type SourceMapInput, TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { transformSync } from 'amaro';
import type { Position } from './text-positions.ts';

export type TranspileResult =
  | { ok: true; code: string; toOriginal?: (p: Position) => Position }
  | { ok: false; message: string; line?: number; column?: number };

interface AmaroError {
  code?: string;
  message: string;
  startLine?: number;
  startColumn?: number;
}

function failure(error: unknown): TranspileResult {
  const e = error as AmaroError;
  const at = e.startLine !== undefined && e.startColumn !== undefined;
  const message = at
    ? `TypeScript: ${e.message} (line ${e.startLine}, column ${e.startColumn! + 1})`
    : `TypeScript: ${e.message}`;
  return at
    ? { ok: false, message, line: e.startLine!, column: e.startColumn! + 1 }
    : { ok: false, message };
}

function mapper(map: SourceMapInput): (p: Position) => Position {
  const trace = new TraceMap(map);
  return (p) => {
    const found = originalPositionFor(trace, { line: p.line, column: p.column - 1 });
    return found.line === null ? p : { line: found.line, column: found.column + 1 };
  };
}

/** Turns TypeScript into JavaScript that QuickJS runs, or a TRANSPILE_ERROR description. */
export function transpileTypeScript(source: string): TranspileResult {
  try {
    return { ok: true, code: transformSync(source, { mode: 'strip-only' }).code };
  } catch (error) {
    if ((error as AmaroError).code !== 'UnsupportedSyntax') return failure(error);
  }
  try {
    const out = transformSync(source, { mode: 'transform', sourceMap: true });
    return { ok: true, code: out.code, toOriginal: out.map ? mapper(out.map as SourceMapInput) : undefined };
  } catch (error) {
    return failure(error);
  }
}
