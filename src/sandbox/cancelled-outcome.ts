/** @module How a run ends when the host's signal aborts it. */
import { abortReason } from '../util/abort-reason.ts';
import type { JobOutcome } from './protocol.ts';

/** CANCELLED, with the abort's reason (a string or an Error's message) as the message. */
export function cancelledOutcome(signal: AbortSignal): JobOutcome {
  return { ok: false, error: { code: 'CANCELLED', message: abortReason(signal) ?? 'cancelled' } };
}
