/** @module Type-checked programs: a TypeScript language service in a worker thread, bounded in time and memory. */
export {
  abandonedResult,
  type CheckRequest,
  type CheckResult,
  TYPECHECK_DEFAULTS,
  TypeChecker,
  type TypeCheckerOptions,
} from './checker.ts';
export type { Scope, ScopeNames, TypeDiagnostic } from './protocol.ts';

/** The worker's entry: dist/ runs worker.js; the sources run worker.ts through tsx. */
export function typecheckWorkerUrl(): URL {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(fromSource ? './source-entry.js' : './worker.js', import.meta.url);
}
