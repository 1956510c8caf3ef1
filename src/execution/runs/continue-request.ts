/**
 * @module The arguments that continue a run instead of starting one: `code_execution` with
 * `{execution_id, wait_ms, cancel}`, `execute` with `{execution_id, timeout_ms, cancel}`.
 * Refusals name the field and the fix; nothing about the run changes on a refusal.
 */
import { MAX_WAIT_MS } from '../../config/defaults.ts';
import type { ErrorBody } from '../types.ts';

export interface ContinueRequest {
  id: string;
  /** How long to wait for the end; absent: code_execution_yield_ms (30 s when yielding is off). */
  waitMs?: number;
  cancel: boolean;
}

type Checked = { ok: true; value: ContinueRequest } | { ok: false; error: ErrorBody };

/** What each tool's continue names its wait, and the arguments that start a run instead. */
const DIALECTS = {
  code_execution: { wait: 'wait_ms', starting: ['code', 'script', 'language', 'input', 'options'] },
  execute: { wait: 'timeout_ms', starting: ['code'] },
} as const;

const invalid = (message: string): Checked => ({
  ok: false,
  error: { code: 'INVALID_REQUEST', message },
});

/** True when `args` continue a run (they carry `execution_id`). */
export function continuesRun(args: unknown): args is Record<string, unknown> {
  return typeof args === 'object' && args !== null && 'execution_id' in args;
}

/** Checks a continue's arguments for `dialect`. */
export function checkContinue(
  args: Record<string, unknown>,
  dialect: keyof typeof DIALECTS,
): Checked {
  const { wait, starting } = DIALECTS[dialect];
  const mixed = starting.filter((key) => args[key] !== undefined);
  if (mixed.length > 0) {
    return invalid(
      `execution_id continues a run that already has its program; send it without ${mixed.join(', ')} (or send ${mixed.join(', ')} without execution_id to start a new run)`,
    );
  }
  const unknown = Object.keys(args).filter(
    (key) => key !== 'execution_id' && key !== wait && key !== 'cancel',
  );
  if (unknown.length > 0) {
    return invalid(
      `unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} with execution_id; a continue takes execution_id, ${wait} and cancel`,
    );
  }
  const id = args.execution_id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 128) {
    return invalid(
      'execution_id must be the execution_id a running answer gave (a non-empty string)',
    );
  }
  const waitMs = args[wait];
  if (
    waitMs !== undefined &&
    (typeof waitMs !== 'number' || !Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_WAIT_MS)
  ) {
    return invalid(
      `${wait} must be an integer from 0 to ${MAX_WAIT_MS} (got ${JSON.stringify(waitMs) ?? String(waitMs)}): how long to wait for the run's end before it answers running again`,
    );
  }
  const cancel = args.cancel;
  if (cancel !== undefined && typeof cancel !== 'boolean') {
    return invalid(
      `cancel must be true or false (got ${JSON.stringify(cancel)}); true stops the run with CANCELLED`,
    );
  }
  return {
    ok: true,
    value: {
      id,
      ...(waitMs !== undefined ? { waitMs: waitMs as number } : {}),
      cancel: cancel === true,
    },
  };
}
