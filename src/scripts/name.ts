/** @module Stored-script names: 1-64 characters of A-Za-z0-9_-, checked before any filesystem access. */

export const SCRIPT_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ALLOWED = /[A-Za-z0-9_-]/;
const MAX_NAME_CHARS = 64;

/** How a character looks in a message: itself when printable ASCII, else its code point too. */
function show(char: string): string {
  const code = char.codePointAt(0)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code >= 0x21 && code <= 0x7e ? `"${char}"` : `${JSON.stringify(char)} (${hex})`;
}

/** undefined when `name` is a valid script name, else the reason, naming the first bad character. */
export function scriptNameProblem(name: string): string | undefined {
  if (SCRIPT_NAME_PATTERN.test(name)) return undefined;
  const rule = 'names are 1-64 characters of A-Z, a-z, 0-9, _ and -, never a path';
  for (const char of name)
    if (!ALLOWED.test(char)) return `character ${show(char)} is not allowed (${rule})`;
  if (name.length === 0) return `the name is empty (${rule})`;
  return `the name is ${name.length} characters long; at most ${MAX_NAME_CHARS} are allowed`;
}
