import { describe, expect, it } from 'vitest';
import { statusFor } from './status.ts';

describe('statusFor', () => {
  it.each([
    ['RUNTIME_ERROR', 200],
    ['TIMEOUT', 200],
    ['SYNTAX_ERROR', 200],
    ['TRANSPILE_ERROR', 200],
    ['MEMORY_LIMIT_EXCEEDED', 200],
    ['INVALID_REQUEST', 400],
    ['INVALID_OPTIONS', 400],
    ['INVALID_LANGUAGE', 400],
    ['INVALID_SCRIPT_NAME', 400],
    ['SCRIPT_UNUSABLE', 400],
    ['SCRIPT_NOT_FOUND', 404],
    ['FEATURE_DISABLED', 403],
    ['EXECUTION_FAILED', 500],
    ['QUEUE_FULL', 429],
    ['CANCELLED', 200],
  ])('%s -> %i', (code, status) => {
    expect(statusFor({ ok: false, error: { code, message: 'x' } })).toBe(status);
  });
  it('answers 200 for a program that succeeded', () => {
    expect(statusFor({ ok: true, value: 1 })).toBe(200);
  });
});
