/**
 * @module TypeScript -> JavaScript. Strip-only first (types become spaces, every line and
 * column stays); enums and namespaces need a real transform, whose source map carries
 * positions back. The TypeScript parser refuses a top-level `return`, so such a program is
 * transpiled inside a function wrapper that is removed again afterwards.
 */
import { originalPositionFor, type SourceMapInput, TraceMap } from '@jridgewell/trace-mapping';
import type { transformSync as TransformSync } from '@swc/wasm-typescript';
import type { Position } from './text-positions.ts';

export type TranspileResult =
  | { ok: true; code: string; toOriginal?: (p: Position) => Position }
  | { ok: false; message: string; line?: number; column?: number };

interface SwcError {
  code?: string;
  message: string;
  startLine?: number;
  startColumn?: number;
}

type Transform = typeof TransformSync;
let swc: Promise<Transform> | undefined;

/** swc's TypeScript stripper (WebAssembly) loads in about 90 ms: only when TypeScript is first used. */
function loadTransform(): Promise<Transform> {
  swc ??= import('@swc/wasm-typescript').then((m) => m.transformSync);
  return swc;
}

const WRAP_HEAD = 'async function __codemux_program__() {\n';
const WRAP_TAIL = '\n}';

const isReturnRefusal = (error: unknown) =>
  /Return statement is not allowed/.test((error as SwcError).message ?? '');

function failure(error: unknown, lineShift: number): TranspileResult {
  const e = error as SwcError;
  if (e.startLine === undefined || e.startColumn === undefined) {
    return { ok: false, message: `TypeScript: ${e.message}` };
  }
  const line = e.startLine - lineShift;
  const column = e.startColumn + 1;
  return {
    ok: false,
    message: `TypeScript: ${e.message} (line ${line}, column ${column})`,
    line,
    column,
  };
}

function mapper(map: SourceMapInput, lineShift: number): (p: Position) => Position {
  const trace = new TraceMap(map);
  return (p) => {
    const found = originalPositionFor(trace, { line: p.line + lineShift, column: p.column - 1 });
    return found.line === null ? p : { line: found.line - lineShift, column: found.column + 1 };
  };
}

function strip(transformSync: Transform, source: string, wrapped: boolean): string {
  if (!wrapped) return transformSync(source, { mode: 'strip-only' }).code;
  const out = transformSync(WRAP_HEAD + source + WRAP_TAIL, { mode: 'strip-only' }).code;
  return out.slice(WRAP_HEAD.length, out.length - WRAP_TAIL.length);
}

function transform(transformSync: Transform, source: string, wrapped: boolean): TranspileResult {
  if (!wrapped) {
    const out = transformSync(source, { mode: 'transform', sourceMap: true });
    return {
      ok: true,
      code: out.code,
      toOriginal: out.map ? mapper(out.map as SourceMapInput, 0) : undefined,
    };
  }
  const out = transformSync(WRAP_HEAD + source + WRAP_TAIL, { mode: 'transform', sourceMap: true });
  const body = out.code.slice(out.code.indexOf('\n') + 1).replace(/\}\s*$/, '');
  return {
    ok: true,
    code: body,
    toOriginal: out.map ? mapper(out.map as SourceMapInput, 1) : undefined,
  };
}

function attempt(
  transformSync: Transform,
  source: string,
  wrapped: boolean,
): TranspileResult | 'needs-transform' {
  try {
    return { ok: true, code: strip(transformSync, source, wrapped) };
  } catch (error) {
    if ((error as SwcError).code !== 'UnsupportedSyntax') throw error;
  }
  return 'needs-transform';
}

/** Turns TypeScript into JavaScript that QuickJS runs, or a TRANSPILE_ERROR description. */
export async function transpileTypeScript(source: string): Promise<TranspileResult> {
  const transformSync = await loadTransform();
  let wrapped = false;
  for (;;) {
    try {
      const stripped = attempt(transformSync, source, wrapped);
      return stripped === 'needs-transform' ? transform(transformSync, source, wrapped) : stripped;
    } catch (error) {
      if (!wrapped && isReturnRefusal(error)) {
        wrapped = true;
        continue;
      }
      return failure(error, wrapped ? 1 : 0);
    }
  }
}

/**
 * Strip-only TypeScript for a function body (the execute dialect): `return` and `await` are
 * legal at its top level, every position stays, and enums, namespaces and decorators are
 * refused (a ParseError there) instead of transformed.
 */
export async function stripFunctionBody(source: string): Promise<TranspileResult> {
  const transformSync = await loadTransform();
  try {
    return { ok: true, code: strip(transformSync, source, true) };
  } catch (error) {
    return failure(error, 1);
  }
}
