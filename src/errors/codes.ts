/** @module The error codes of the codemux contract (DESIGN.md), one string union. */

/** Codes an execution (or its refusal before running) can end with. */
export const EXECUTION_ERROR_CODES = [
  'SYNTAX_ERROR',
  'TRANSPILE_ERROR',
  'TYPE_ERROR',
  'RUNTIME_ERROR',
  'TIMEOUT',
  'MAX_TOOL_CALLS_EXCEEDED',
  'SERVER_NOT_ALLOWED',
  'SERIALIZATION_ERROR',
  'INVALID_ARGS',
  'INVALID_LANGUAGE',
  'INVALID_REQUEST',
  'INVALID_OPTIONS',
  'MEMORY_LIMIT_EXCEEDED',
  'OUTPUT_TOO_LARGE',
  'RESOURCE_LIMIT_EXCEEDED',
  'SCRIPT_NOT_FOUND',
  'INVALID_SCRIPT_NAME',
  'SCRIPT_UNUSABLE',
  'FEATURE_DISABLED',
  'EXECUTION_FAILED',
  /** Stopped by `cancel` (or its request, before it yielded): "cancelled by <caller>". */
  'CANCELLED',
  /** `execution_id` names no run this caller may see (unknown, another token's, past its time). */
  'EXECUTION_NOT_FOUND',
  /** code_execution_max_running runs are alive on this instance. */
  'QUEUE_FULL',
  /** The run was lost to a stop of its instance and was not journaled (code_execution_durable false). */
  'INTERRUPTED',
  /** On resume, the program asked for something other than its journal holds; nothing more was sent. */
  'REPLAY_DIVERGED',
] as const;

/** Codes a single upstream call can fail with, inside a call envelope. */
export const CALL_ERROR_CODES = [
  'TOOL_ERROR',
  'UPSTREAM_ERROR',
  'SERVER_UNAVAILABLE',
  'QUEUE_FULL',
  'ACCESS_DENIED',
  'TOOL_CHANGED',
  'POLICY_DENIED',
  'APPROVAL_DENIED',
  'APPROVAL_TIMEOUT',
  'SERVER_NOT_ALLOWED',
  'MAX_TOOL_CALLS_EXCEEDED',
  'INVALID_ARGS',
] as const;

export type ExecutionErrorCode = (typeof EXECUTION_ERROR_CODES)[number];
export type CallErrorCode = (typeof CALL_ERROR_CODES)[number];
