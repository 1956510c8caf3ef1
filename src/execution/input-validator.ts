/**
 * @module Checks a call's arguments against its tool's input schema before dispatch, in
 * both dialects (INVALID_ARGS in call_tool / call_tools, invalid_input in tools.*).
 */
import type { CallRequest } from '../sandbox/index.ts';
import { BoundedValidators, type UpstreamRegistry } from '../upstream/index.ts';

const validators = new BoundedValidators();

/** undefined when `args` fit `schema` (or codemux does not check that schema), else a message. */
export function inputProblem(schema: Record<string, unknown>, args: unknown): string | undefined {
  const verdict = validators.check(schema, args, 'args');
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
