/**
 * @module The program's value as JSON text, bounded by the output limit: the fast path
 * (JSON.stringify with a guard, in the guest) and, when it gives up, the exact serializer.
 */
import type { QuickJSHandle } from 'quickjs-emscripten-core';
import type { JobLimits, JobOutcome } from '../protocol.ts';
import { callHook, unwrap } from './guest-call.ts';
import { outputTooLarge, SERIALIZATION_MESSAGE } from './guest-errors.ts';
import type { Instance } from './instance.ts';
import { SERIALIZER_SOURCE } from './prelude.ts';

/** A getter or toJSON the serializer meets may throw: that is GuestThrew, for the caller to classify. */
export function serializeValue(
  instance: Instance,
  value: QuickJSHandle,
  limits: JobLimits,
): JobOutcome {
  const { context } = instance;
  const fast = callHook(instance, 'fast', value);
  const json = context.typeof(fast) === 'string' ? context.getString(fast) : undefined;
  fast.dispose();
  if (json !== undefined) {
    if (Buffer.byteLength(json) > limits.maxOutputBytes) return outputTooLarge(limits);
    return { ok: true, valueJson: json };
  }
  const serializer = unwrap(context.evalCode(SERIALIZER_SOURCE, '<serializer>'));
  const maxChars = context.newNumber(limits.maxOutputBytes);
  // A getter or toJSON met on the way may throw (or overflow the stack): a guest error.
  const result = unwrap(context.callFunction(serializer, context.undefined, value, maxChars));
  serializer.dispose();
  maxChars.dispose();
  // '1' + JSON, or '0' + code + '\n' + detail.
  const text = context.getString(result);
  result.dispose();
  if (text[0] === '1') {
    const exact = text.slice(1);
    if (Buffer.byteLength(exact) > limits.maxOutputBytes) return outputTooLarge(limits);
    return { ok: true, valueJson: exact };
  }
  const newline = text.indexOf('\n');
  if (text.slice(1, newline) === 'OUTPUT_TOO_LARGE') return outputTooLarge(limits);
  // The message is the API reference's, verbatim; where the value went wrong is the stack.
  return {
    ok: false,
    error: {
      code: 'SERIALIZATION_ERROR',
      message: SERIALIZATION_MESSAGE,
      stack: text.slice(newline + 1),
    },
  };
}
