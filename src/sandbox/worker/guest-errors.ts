/** @module The errors a run reports, as GuestErrors: the guest's own (with its frame), limits met, messages the contract quotes. */
import type { GuestError, JobLimits, JobOutcome } from '../protocol.ts';

export const TIMEOUT_MESSAGE = 'JavaScript execution timed out';
export const SERIALIZATION_MESSAGE =
  'Result contains non-JSON-serializable values (functions, circular references, etc.)';

export interface Described {
  isError: boolean;
  name: string;
  message: string;
  stack: string;
}

export function tooLargeGlobals(why: 'out of memory' | 'stack overflow'): GuestError {
  return { code: 'GLOBALS_TOO_LARGE', message: why, stack: '' };
}

/** QuickJS's own out-of-memory errors ("out of memory", "out of memory in regexp execution"). */
export const OUT_OF_MEMORY = /^out of memory\b/;

/** A reply of at least this share of the memory cap (1/8) is named when the memory runs out. */
const BIG_REPLY_SHARE = 8;

/** MEMORY_LIMIT_EXCEEDED; names the largest tool result the guest received when it was a large share of the cap. */
export function memoryLimitError(limitBytes: number, largestReplyChars: number): GuestError {
  const mb = Math.round(limitBytes / 1_048_576);
  // A result takes its text and its parsed copy in the guest: say so when one was a large share.
  const reply = largestReplyChars;
  const note =
    reply * BIG_REPLY_SHARE >= limitBytes
      ? `; it had received a tool result of ${(reply / 1_048_576).toFixed(1)} MB of JSON, which the sandbox holds as text and again decoded (raise the memory limit, or ask the tool for less)`
      : '';
  return {
    code: 'MEMORY_LIMIT_EXCEEDED',
    message: `The program exceeded the sandbox memory limit (${mb} MB)${note}`,
    stack: '',
  };
}

/** Position of the first frame in the program's own file (not the prelude's) in a QuickJS stack. */
function topFrame(stack: string, filename: string): { line: number; column: number } | undefined {
  for (const line of stack.split('\n')) {
    const at = line.lastIndexOf(`${filename}:`);
    if (at < 0) continue;
    const match = /^(\d+):(\d+)/.exec(line.slice(at + filename.length + 1));
    if (match) return { line: Number(match[1]), column: Number(match[2]) };
  }
  return undefined;
}

export function errorFrom(
  code: GuestError['code'],
  d: Described,
  filename: string,
  syntax = false,
): GuestError {
  const message = d.isError && d.name !== 'Error' ? `${d.name}: ${d.message}` : d.message;
  const frame = topFrame(d.stack, filename);
  const stack = d.isError ? `${d.name}: ${d.message}\n${d.stack}`.trimEnd() : '';
  return {
    code,
    message,
    stack: syntax ? '' : stack,
    ...(frame ?? {}),
  };
}

/** OUTPUT_TOO_LARGE, naming the config field that set the bound. */
export function outputTooLarge(limits: JobLimits): JobOutcome {
  const field = limits.maxOutputBytesField ?? 'code_execution_max_output_bytes';
  return {
    ok: false,
    error: {
      code: 'OUTPUT_TOO_LARGE',
      message: `The result is larger than ${field} (${limits.maxOutputBytes} bytes); return less data`,
      stack: '',
    },
  };
}
