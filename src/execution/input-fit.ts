/**
 * @module Whether a program's input (a code tool's arguments) fits in the sandbox's memory cap,
 * and the INVALID_REQUEST that refuses it, naming the value, its size and the cap.
 *
 * The guest parses the JSON text itself and is the exact judge (GLOBALS_TOO_LARGE from the
 * worker: the parse ran out of memory, or out of stack). What the host can refuse without
 * asking it: a text larger than the cap, since the guest holds the text while it parses.
 * Measured (docs/engine.md, "How much input fits"): a value takes 2 to 28 times its JSON size
 * once parsed, depending on its shape, so no fixed share of the cap would be right.
 */
import type { ErrorBody } from './types.ts';

const MB = 1_048_576;

/** What a refusal names: the value, its JSON size, the cap and the setting that raises it. */
export interface InputFacts {
  /** `input` (code_execution) or `arguments` (a code tool). */
  what: 'input' | 'arguments';
  bytes: number;
  capMb: number;
  /** The config field or tool field that sets the cap. */
  capField: string;
}

/** True when the JSON text alone is larger than the cap: it can never be parsed there. */
export function cannotFit(facts: InputFacts): boolean {
  return facts.bytes > facts.capMb * MB;
}

/** The refusal of an input that does not fit: `why` is the guest's reason, when it tried. */
export function inputTooLarge(
  facts: InputFacts,
  why: 'out of memory' | 'stack overflow' = 'out of memory',
): ErrorBody {
  const { what, bytes, capMb, capField } = facts;
  const fix =
    what === 'input'
      ? `send a smaller input (a program can fetch large data itself with a tool call) or raise ${capField}`
      : `send smaller arguments or raise ${capField}`;
  const verb = what === 'input' ? 'is' : 'are';
  const problem =
    why === 'stack overflow'
      ? `${verb} nested too deeply for the sandbox: ${bytes} bytes of JSON could not be parsed within its stack (memory cap ${capMb} MB, ${capField})`
      : `${verb} too large for the sandbox: ${bytes} bytes of JSON do not fit, once parsed, in its memory cap of ${capMb} MB (${capField})`;
  return { code: 'INVALID_REQUEST', message: `${what} ${problem}; ${fix}` };
}
