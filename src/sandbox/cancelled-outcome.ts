/** @module How a run ends when the host's signal aborts it. */
import type { JobOutcome } from './protocol.ts';

/** CANCELLED, with the abort's reason (a string or an Error's message) as the message. */
export function cancelledOutcome(signal: AbortSignal): JobOutcome {
  const reason: unknown = signal.reason;
  const message =
    typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : 'cancelled';
  return { ok: false, error: { code: 'CANCELLED', message } };
}
