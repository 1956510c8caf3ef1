/**
 * @module The type check before a run (DESIGN.md, "Type-checked programs"): which programs
 * are checked (TypeScript; JavaScript that starts with `// @ts-check`), against what (the
 * declarations of the caller's scope, from the catalog), and what a finding does: under
 * `warn` the run goes on and the answer lists the diagnostics; under `error` nothing runs.
 */
import type { Catalog, DeclarationDialect } from '../catalog/index.ts';
import type { TypecheckMode } from '../config/defaults.ts';
import type { Language } from '../sandbox/index.ts';
import {
  abandonedResult,
  type CheckResult,
  type TypeChecker,
  type TypeDiagnostic,
} from '../typecheck/index.ts';
import type { ErrorBody } from './types.ts';

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
}

/** A check under way, and what its findings do. */
export interface ProgramCheck {
  mode: 'warn' | 'error';
  result: Promise<CheckResult>;
  /** Under `warn`, how long the finished program's answer waits for it. */
  waitMs: number;
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
  const result = deps.typecheck.check({
    scopeKey: scope.key,
    scope: scope.source,
    source: facts.code,
    javascript: facts.language === 'javascript',
  });
  return { mode: facts.mode, result, waitMs: deps.typecheck.warnWaitMs };
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
  return diagnostics.length > 0 ? diagnostics : undefined;
}
