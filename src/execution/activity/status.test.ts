import { describe, expect, it } from 'vitest';
import { activityStatus } from './status.ts';

describe('activityStatus', () => {
  it.each([
    [undefined, '', 'success'],
    ['TOOL_ERROR', 'boom', 'tool_error'],
    ['UPSTREAM_ERROR', 'fixture.fail: connection reset', 'tool_error'],
    ['UPSTREAM_ERROR', 'server not found: nope', 'error'],
    ['UPSTREAM_ERROR', 'tool not found: everything.nope', 'error'],
    ['upstream_error', '', 'tool_error'],
    ['invalid_output', '', 'tool_error'],
    ['SERVER_UNAVAILABLE', '', 'error'],
    ['upstream_timeout', '', 'error'],
    ['TIMEOUT', '', 'error'],
    ['RUNTIME_ERROR', '', 'error'],
    ['SERVER_NOT_ALLOWED', '', 'blocked'],
    ['ACCESS_DENIED', '', 'blocked'],
    ['access_denied', '', 'blocked'],
    ['QUEUE_FULL', '', 'blocked'],
    ['MAX_TOOL_CALLS_EXCEEDED', '', 'blocked'],
    ['FEATURE_DISABLED', '', 'blocked'],
    ['INVALID_REQUEST', '', 'rejected'],
    ['INVALID_OPTIONS', '', 'rejected'],
    ['SCRIPT_NOT_FOUND', '', 'rejected'],
    ['INVALID_ARGS', '', 'rejected'],
    ['invalid_input', '', 'rejected'],
  ] as const)('%s (%s) is %s', (code, message, status) => {
    expect(activityStatus(code, message)).toBe(status);
  });
});
