/**
 * @module Schema `pattern`s run on RE2 (re2js: linear time, no catastrophic backtracking),
 * plugged into ajv as `code.regExp`. A pattern RE2 cannot compile (backreferences,
 * lookarounds) is left unchecked: it matches everything, and the upstream checks it.
 */
import { RE2JS } from 're2js';

export interface LinearRegExp {
  test(input: string): boolean;
  /** ajv dedupes patterns by this text. */
  toString(): string;
  /** false when RE2 could not compile the pattern (it then accepts everything). */
  readonly checked: boolean;
}

/** JavaScript `\uXXXX` and `\u{X...}` escapes in RE2's spelling `\x{...}` (an escaped backslash stays). */
function toRe2Syntax(pattern: string): string {
  return pattern.replace(
    /\\(\\|u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4}))/g,
    (whole, _e, braced, four) => (braced || four ? `\\x{${braced ?? four}}` : whole),
  );
}

/** Compiles `pattern` with RE2; the flags ajv passes ("u" or "") need nothing (RE2 is Unicode-aware). */
export function linearRegExp(pattern: string, _flags?: string): LinearRegExp {
  const text = `/${pattern}/`;
  try {
    const re = RE2JS.compile(toRe2Syntax(pattern));
    return { test: (input) => re.matcher(input).find(), toString: () => text, checked: true };
  } catch {
    return { test: () => true, toString: () => `${text}unchecked`, checked: false };
  }
}
/** ajv writes this name into generated code only in standalone mode, which codemux does not use. */
linearRegExp.code = 'linearRegExp';
