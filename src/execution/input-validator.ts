/** @module Checks tools.* arguments against the tool's input schema before dispatch (invalid_input). */
import { Ajv, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
/** Compiled per schema object: a re-listed tool brings a new schema and a new validator. */
const compiled = new WeakMap<object, ValidateFunction | null>();

/** undefined when `args` fit `schema` (or the schema cannot be compiled), else a message. */
export function inputProblem(schema: Record<string, unknown>, args: unknown): string | undefined {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    try {
      validate = ajv.compile(schema);
    } catch {
      // A schema ajv cannot read is the upstream's to enforce.
      validate = null;
    }
    compiled.set(schema, validate);
  }
  if (!validate || validate(args)) return undefined;
  const error = validate.errors?.[0];
  if (!error) return 'the arguments do not match the input schema';
  const where = error.instancePath ? `args${error.instancePath.replace(/\//g, '.')}` : 'args';
  return `${where} ${error.message ?? 'is invalid'}`;
}
