/** @module Checks tools.* arguments against the tool's input schema before dispatch (invalid_input). */
import { BoundedValidators } from '../upstream/index.ts';

const validators = new BoundedValidators();

/** undefined when `args` fit `schema` (or codemux does not check that schema), else a message. */
export function inputProblem(schema: Record<string, unknown>, args: unknown): string | undefined {
  const verdict = validators.check(schema, args, 'args');
  return verdict.ok ? undefined : verdict.message;
}
