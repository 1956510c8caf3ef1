/** @module Name rules of code tools and their params: tool names as MCP tool names, params as JavaScript identifiers. */

import { SANDBOX_GLOBAL_NAMES } from './sandbox-globals.ts';

export const CODE_TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** The built-in tool a code tool cannot shadow. */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(['code_execution']);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

/** ES2023 reserved words, strict-mode ones and the literals. */
const RESERVED_WORDS = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export ' +
    'extends false finally for function if implements import in instanceof interface let new ' +
    'null package private protected public return static super switch this throw true try ' +
    'typeof var void while with yield arguments eval'
  ).split(' '),
);

/** Globals the sandbox defines (generated from the real engine): a param cannot hide them. */
const SANDBOX_GLOBALS: ReadonlySet<string> = new Set(SANDBOX_GLOBAL_NAMES);

/** Why `name` cannot be a code tool's name, or undefined when it can. */
export function toolNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !CODE_TOOL_NAME_PATTERN.test(name))
    return 'name must be 1-64 characters of A-Z, a-z, 0-9, _ and -';
  if (RESERVED_TOOL_NAMES.has(name)) return `name "${name}" is reserved by codemux; choose another`;
  return undefined;
}

/** Why `name` cannot be a param's name, or undefined when it can. */
export function paramNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !IDENTIFIER.test(name))
    return 'params.name must be a JavaScript identifier of at most 64 characters (letters, digits, _ and $, not starting with a digit)';
  if (RESERVED_WORDS.has(name)) return `params.name "${name}" is a JavaScript reserved word`;
  // Assigning it would replace the global object's prototype instead of defining a variable.
  if (name === '__proto__')
    return 'params.name "__proto__" cannot be a variable (assigning it changes the global object\'s prototype); choose another name';
  if (SANDBOX_GLOBALS.has(name))
    return `params.name "${name}" is already defined in the sandbox; choose another name`;
  return undefined;
}
