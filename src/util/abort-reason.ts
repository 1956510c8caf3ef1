/** @module What an abort says: an AbortSignal's reason as text. */

/** The reason `signal` was aborted with, as text (a string, or an Error's message); undefined otherwise. */
export function abortReason(signal: AbortSignal): string | undefined {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error ? reason.message : undefined;
}
