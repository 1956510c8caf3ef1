/**
 * @module The execute tool's result in Arion's terms: diagnostics (kinds, positions, a type
 * check's findings), the result object, and how a result reads in the activity history.
 */
import type { GuestError } from '../sandbox/index.ts';
import type { TypeDiagnostic } from '../typecheck/index.ts';
import type { Envelope, ToolCallRecord } from './types.ts';

export type DiagnosticKind =
  | 'ParseError'
  | 'TypeError'
  | 'ExecutionFailure'
  | 'TimeoutExceeded'
  | 'ResourceLimitExceeded'
  | 'InternalError';

export interface Diagnostic {
  kind: DiagnosticKind;
  message: string;
  /**
   * codemux's error code where Arion has no kind of its own (FEATURE_DISABLED, TYPE_ERROR);
   * a type check's finding (`TypeError`) carries TypeScript's number.
   */
  code?: string | number;
  line?: number;
  column?: number;
}

export interface ExecuteResult {
  status: 'completed' | 'error';
  result: unknown;
  error: Diagnostic | null;
  diagnostics: Diagnostic[];
  logs: string[];
  toolCalls: Array<{ tool: string; ok: boolean; durationMs: number }>;
}

export interface ExecuteOutcome {
  result: ExecuteResult;
  /** Present when the result was trimmed to max_output_bytes. */
  truncation?: { logsOmitted: number; toolCallsOmitted: number };
  /** The activity record of this execution, when history is on. */
  activityId?: string;
}

export function diagnostic(
  kind: DiagnosticKind,
  message: string,
  at?: { line?: number; column?: number },
): Diagnostic {
  return { kind, message, ...(at?.line !== undefined ? { line: at.line, column: at.column } : {}) };
}

/** Engine outcome -> Arion's diagnostic kinds. */
export function toDiagnostic(
  error: GuestError,
  mapped: { message: string; stack?: string; line?: number; column?: number },
): Diagnostic {
  switch (error.code) {
    case 'SYNTAX_ERROR':
      return diagnostic('ParseError', mapped.message, mapped);
    case 'TIMEOUT':
      return diagnostic('TimeoutExceeded', 'The run exceeded its wall-clock limit');
    case 'MEMORY_LIMIT_EXCEEDED':
      return diagnostic('ResourceLimitExceeded', `memory limit exceeded: ${error.message}`);
    case 'OUTPUT_TOO_LARGE':
      return diagnostic('ResourceLimitExceeded', `result size limit exceeded: ${error.message}`);
    case 'RESOURCE_LIMIT_EXCEEDED':
      return diagnostic('ResourceLimitExceeded', error.message);
    case 'EXECUTION_FAILED':
      return diagnostic('InternalError', 'An internal error occurred');
    case 'CANCELLED':
      return { ...diagnostic('ExecutionFailure', error.message), code: 'CANCELLED' };
    default:
      return diagnostic(
        'ExecutionFailure',
        mapped.stack ? `${mapped.message}\n${mapped.stack}` : mapped.message,
        mapped,
      );
  }
}

/** A type check's findings as Arion's diagnostics (kind `TypeError`, TypeScript's code). */
export function typeDiagnostics(found: readonly TypeDiagnostic[]): Diagnostic[] {
  return found.map((d) => ({ kind: 'TypeError', ...d }));
}

/** A failed run's result: the diagnostic, with what the program logged and called before. */
export function errorResult(
  d: Diagnostic,
  logs: string[] = [],
  toolCalls: ExecuteResult['toolCalls'] = [],
): ExecuteResult {
  return { status: 'error', result: null, error: d, diagnostics: [d], logs, toolCalls };
}

/** The gate's trace entries as execute's `toolCalls` (`server.tool`, ok, durationMs). */
export function executeToolCalls(records: readonly ToolCallRecord[]): ExecuteResult['toolCalls'] {
  return records.map((c) => ({
    tool: `${c.server}.${c.tool}`,
    ok: c.ok,
    durationMs: c.duration_ms,
  }));
}

/** An execute result in the history's terms: `{ok, value}` or `{ok: false, error: {code, message}}`. */
export function asEnvelope(outcome: ExecuteOutcome): Envelope {
  const { result } = outcome;
  if (result.status === 'completed') {
    return { ok: true, value: result.result, ...(result.logs.length ? { logs: result.logs } : {}) };
  }
  const d = result.error!;
  return {
    ok: false,
    error: { code: String(d.code ?? d.kind), message: d.message },
    ...(result.logs.length ? { logs: result.logs } : {}),
  };
}
