/** @module Which activity status an error code means (DESIGN.md's status vocabulary). */
import type { ActivityStatus } from '../../store/index.ts';

/** Refused by policy: allowed servers, token scope, quarantine, a held tool (pinning), tool_policy (denied, or an approval denied or expired), call budget, queue, feature switch. */
const BLOCKED = new Set([
  'SERVER_NOT_ALLOWED',
  'ACCESS_DENIED',
  'access_denied',
  'TOOL_CHANGED',
  'POLICY_DENIED',
  'APPROVAL_DENIED',
  'APPROVAL_TIMEOUT',
  'MAX_TOOL_CALLS_EXCEEDED',
  'max_tool_calls_exceeded',
  'QUEUE_FULL',
  'overflow',
  'FEATURE_DISABLED',
  'TOO_MANY_EXECUTIONS',
]);

/** An invalid request refused before anything ran. */
const REJECTED = new Set([
  'INVALID_REQUEST',
  'INVALID_OPTIONS',
  'INVALID_LANGUAGE',
  'INVALID_ARGS',
  'INVALID_SCRIPT_NAME',
  'SCRIPT_NOT_FOUND',
  'SCRIPT_UNUSABLE',
  'INVALID_CODE_TOOL',
  'invalid_input',
  'TYPE_ERROR',
]);

/** The upstream answered with an error (an isError result, or its own failure). */
const TOOL_ERROR = new Set([
  'TOOL_ERROR',
  'UPSTREAM_ERROR',
  'upstream_error',
  'INVALID_OUTPUT',
  'invalid_output',
  'tool_error',
]);

/** UPSTREAM_ERROR also names calls that never reached a tool: those are the program's errors. */
const NEVER_SENT = /^(server not found|tool not found)/;

/** The status of an outcome: success without a code, else by the code's meaning. */
export function activityStatus(code: string | undefined, message = ''): ActivityStatus {
  if (code === undefined) return 'success';
  if (code === 'UPSTREAM_ERROR' && NEVER_SENT.test(message)) return 'error';
  if (BLOCKED.has(code)) return 'blocked';
  if (REJECTED.has(code)) return 'rejected';
  if (TOOL_ERROR.has(code)) return 'tool_error';
  return 'error';
}
