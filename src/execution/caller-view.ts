/**
 * @module What a caller may read of the host: the administrator sees every detail of a
 * failure; an agent token never sees host paths, Node's internal stack frames or an
 * upstream's stderr tail. Every surface shows per-call and top-level errors through here.
 */
import type { ResolvedConfig } from '../config/index.ts';
import type { Caller, ErrorBody } from './types.ts';

/** Where a connect failure's message starts quoting the child's stderr (upstream/sdk-connection.ts). */
const STDERR_TAIL = /;? ?its stderr ends with:[\s\S]*$/;
/** A stack frame that names a host file or a Node internal (guest frames name only code.js/code.ts). */
const HOST_FRAME = /^\s*at .*(node:|[/\\]).*$/gm;
/** `node:internal/...` anywhere else in the text. */
const NODE_INTERNAL = /node:internal[^\s)'"]*/g;
/** Absolute POSIX or Windows paths (not the path part of a URL), with file:// URLs. */
const HOST_PATH =
  /file:\/\/\/?[^\s'"`)]+|(?<![\w.:/\\-])\/(?:[^\s/'"`:()]+\/)+[^\s'"`:()]*|\b[A-Za-z]:\\[^\s'"`)]+/g;

/** `text` as `caller` may see it. */
export function messageFor(text: string, caller: Caller): string {
  if (caller.kind === 'admin') return text;
  return text
    .replace(STDERR_TAIL, ' (details are in the gateway log)')
    .replace(HOST_FRAME, '')
    .replace(NODE_INTERNAL, '<internal>')
    .replace(HOST_PATH, '<path>')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

/** An error body as `caller` may see it. */
export function errorFor(error: ErrorBody, caller: Caller): ErrorBody {
  if (caller.kind === 'admin') return error;
  return {
    ...error,
    message: messageFor(error.message, caller),
    ...(error.stack !== undefined ? { stack: messageFor(error.stack, caller) } : {}),
  };
}

/** FEATURE_DISABLED: the administrator is told which file to edit, an agent token only whom to ask. */
export function featureDisabled(config: ResolvedConfig, caller: Caller): ErrorBody {
  const fix =
    caller.kind === 'admin'
      ? `set "enable_code_execution": true in ${config.path ?? 'the config file'} to enable it`
      : 'ask the gateway administrator to enable it';
  return { code: 'FEATURE_DISABLED', message: `code execution is disabled; ${fix}` };
}
