/**
 * @module Calling into the guest from the worker: a result either holds a value or carries the
 * guest's exception, which becomes GuestThrew so the run can classify it instead of losing it.
 */
import type { DisposableResult, QuickJSHandle } from 'quickjs-emscripten-core';
import type { Instance } from './instance.ts';

/** The guest threw inside a hook the worker called (a getter met by the serializer, say). */
export class GuestThrew extends Error {
  constructor(readonly handle: QuickJSHandle) {
    super('the guest threw');
  }
}

/** The value, or GuestThrew carrying the guest's exception. */
export function unwrap(result: DisposableResult<QuickJSHandle, QuickJSHandle>): QuickJSHandle {
  if (result.error) throw new GuestThrew(result.error);
  return result.value;
}

/** Calls one of the prelude's hooks with `args`; its exception becomes GuestThrew. */
export function callHook(
  instance: Instance,
  name: keyof Instance['hooks'],
  ...args: QuickJSHandle[]
): QuickJSHandle {
  const { context, hooks } = instance;
  return unwrap(context.callFunction(hooks[name], context.undefined, ...args));
}
