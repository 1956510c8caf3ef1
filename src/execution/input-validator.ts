/**
 * @module Checks a call's arguments against its tool's input schema before dispatch, in
 * both dialects (INVALID_ARGS in call_tool / call_tools, invalid_input in tools.*).
 */
import type { CallRequest } from '../sandbox/index.ts';
import { BoundedValidators, type UpstreamRegistry } from '../upstream/index.ts';

const validators = new BoundedValidators();

/**
 * `args` without its top-level `null`s for parameters the schema does not require: `null`
 * for an optional parameter means "not provided" (SEP-2243 names it so for its headers, and
 * clients send it so), whatever type the parameter declares. The call still carries the `null`.
 */
function withoutOptionalNulls(schema: Record<string, unknown>, args: unknown): unknown {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const entries = Object.entries(args);
  if (!entries.some(([key, value]) => value === null && !required.has(key))) return args;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    // defineProperty: a `__proto__` key stays a plain data key, as JSON.parse made it.
    if (value !== null || required.has(key))
      Object.defineProperty(kept, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return kept;
}

/** undefined when `args` fit `schema` (or codemux does not check that schema), else a message. */
export function inputProblem(schema: Record<string, unknown>, args: unknown): string | undefined {
  const verdict = validators.check(schema, withoutOptionalNulls(schema, args), 'args');
  return verdict.ok ? undefined : verdict.message;
}

/**
 * The INVALID_ARGS refusal of a call whose arguments break its tool's input schema, naming
 * the tool and the property; undefined when they fit, or when the tool is unknown (the
 * call then fails as "tool not found").
 */
export function argsRefusal(
  registry: UpstreamRegistry,
  request: CallRequest,
): { code: 'INVALID_ARGS'; message: string } | undefined {
  const tool = registry.tools(request.server).find((t) => t.name === request.tool);
  const problem = tool ? inputProblem(tool.inputSchema, request.args) : undefined;
  return problem === undefined
    ? undefined
    : { code: 'INVALID_ARGS', message: `${request.server}.${request.tool}: ${problem}` };
}
