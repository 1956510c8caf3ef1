/** @module Name rules of code tools and their params: tool names as MCP tool names, params as JavaScript identifiers. */

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

/** Globals the sandbox defines (the language's and codemux's own): a param cannot hide them. */
const SANDBOX_GLOBALS = new Set(
  (
    'globalThis undefined NaN Infinity Object Function Array Number Boolean String Symbol BigInt ' +
    'Math JSON Date RegExp Error TypeError RangeError SyntaxError ReferenceError EvalError URIError ' +
    'AggregateError InternalError Promise Proxy Reflect Map Set WeakMap WeakSet WeakRef ' +
    'FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array Uint8Array ' +
    'Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array BigInt64Array BigUint64Array ' +
    'Float32Array Float64Array parseInt parseFloat isNaN isFinite encodeURI encodeURIComponent ' +
    'decodeURI decodeURIComponent escape unescape Intl input call_tool call_tools tools catalog console'
  ).split(' '),
);

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
  if (SANDBOX_GLOBALS.has(name))
    return `params.name "${name}" is already defined in the sandbox; choose another name`;
  return undefined;
}
