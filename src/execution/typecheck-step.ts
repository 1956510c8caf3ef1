/**
 * @module The type check before a run (DESIGN.md, "Type-checked programs"): which programs
 * are checked (TypeScript; JavaScript that starts with `// @ts-check`; in `execute`, a program
 * with no TypeScript syntax as JavaScript), against what (the declarations of the caller's
 * scope, from the catalog), in whose queue (the caller's), and what a finding does: under
 * `warn` the run goes on and the answer lists the diagnostics (a check still waiting when the
 * answer goes is dropped); under `error` nothing runs, nor does a program whose check could
 * not start within `code_execution_typecheck_wait_ms`.
 */
import type { Catalog, DeclarationDialect } from '../catalog/index.ts';
import type { TypecheckMode } from '../config/defaults.ts';
import type { Language } from '../sandbox/index.ts';
import { type TraceSpan, TYPECHECK_SPAN, tracing } from '../telemetry/index.ts';
import {
  abandonedResult,
  type CheckResult,
  type TypeChecker,
  type TypeDiagnostic,
} from '../typecheck/index.ts';
import { callerLabel } from './activity/entry.ts';
import type { Caller, ErrorBody } from './types.ts';

/** What the check needs from the service. */
export interface TypecheckDeps {
  /** Absent: nothing is checked (a runtime without a checker). */
  typecheck?: TypeChecker;
  catalog: Catalog;
}

export interface ProgramFacts {
  code: string;
  language: Language;
  mode: TypecheckMode;
  /** The servers the program may reach; undefined = every server. */
  allowedServers: ReadonlySet<string> | undefined;
  dialect: DeclarationDialect;
  /** The check waits in this caller's queue. */
  caller: Caller;
  /** Under `error`: how long the check may wait to start (`code_execution_typecheck_wait_ms`). */
  waitMs: number;
  /** The language is not stated (`execute`): no TypeScript syntax means JavaScript semantics. */
  detectJavascript?: boolean;
  /** The run's span (traces on): the check is a span under it, until its result or its drop. */
  span?: TraceSpan;
}

/** A check under way, and what its findings do. */
export interface ProgramCheck {
  mode: 'warn' | 'error';
  result: Promise<CheckResult>;
  /** Under `warn`, how long the finished program's answer waits for it. */
  waitMs: number;
  /** The answer went without it: a check still waiting is dropped (idempotent). */
  drop: () => void;
}

/** A JavaScript program opts in with this as its first line. */
const TS_CHECK = /^\s*\/\/\s*@ts-check\b/;

/** True when `code` in `language` is type-checked (TypeScript; JavaScript that opts in). */
export function isChecked(code: string, language: Language): boolean {
  return language === 'typescript' || TS_CHECK.test(code);
}

/** Starts the check of a program (off the event loop), or undefined when it is not checked. */
export function startTypecheck(deps: TypecheckDeps, facts: ProgramFacts): ProgramCheck | undefined {
  if (facts.mode === 'off' || !deps.typecheck || !isChecked(facts.code, facts.language)) {
    return undefined;
  }
  const scope = deps.catalog.declarations(facts.allowedServers, facts.dialect);
  const answered = new AbortController();
  const span = tracing().child(facts.span, TYPECHECK_SPAN);
  const result = deps.typecheck.check({
    scopeKey: scope.key,
    scope: scope.source,
    source: facts.code,
    javascript: facts.language === 'javascript',
    ...(facts.detectJavascript ? { detectJavascript: true } : {}),
    caller: callerLabel(facts.caller),
    // Under warn the program does not wait for its check; its answer waits warnWaitMs.
    ...(facts.mode === 'error' ? { waitMs: facts.waitMs } : {}),
    signal: answered.signal,
  });
  if (span.recording) {
    // A check that could not finish (abandoned: its wait, its bounds, its drop) failed.
    void result.then(
      (found) => span.end(found.abandoned ? 'abandoned' : undefined),
      () => span.end('failed'),
    );
  }
  return {
    mode: facts.mode,
    result,
    waitMs: deps.typecheck.warnWaitMs,
    drop: () => answered.abort(),
  };
}

/** Under `error`: the findings that refuse the program (undefined: it runs). */
export async function refusingFindings(
  check: ProgramCheck | undefined,
): Promise<CheckResult | undefined> {
  if (check?.mode !== 'error') return undefined;
  const found = await check.result;
  return found.diagnostics.length > 0 ? found : undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** TYPE_ERROR for a program that was not run: how many findings, and the first, at its position. */
export function typeError(result: CheckResult): ErrorBody {
  const first = result.diagnostics[0]!;
  const why = result.abandoned
    ? `the program could not be type-checked (${result.abandoned})`
    : `the program has ${plural(result.total, 'type error')}`;
  return {
    code: 'TYPE_ERROR',
    message: `${why} and did not run, as typecheck is "error" (see diagnostics): line ${first.line}, column ${first.column}: ${first.message}`,
    line: first.line,
    column: first.column,
  };
}

/** The diagnostics of a check under `warn`, for the answer (none: undefined). */
export async function diagnosticsOf(
  check: ProgramCheck | undefined,
): Promise<TypeDiagnostic[] | undefined> {
  if (!check) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(
      () => resolve(abandonedResult(`it had not finished ${check.waitMs} ms after the program`)),
      check.waitMs,
    );
  });
  const { diagnostics } = await Promise.race([check.result, late]);
  clearTimeout(timer);
  check.drop();
  return diagnostics.length > 0 ? diagnostics : undefined;
}
