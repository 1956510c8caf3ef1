/** @module Waiting on something with a bound: whichever comes first ends the wait. */

/**
 * Resolves when `promise` settles, `ms` pass (undefined: no limit), or `signal` aborts,
 * whichever comes first; never rejects.
 */
export function waitFor(
  promise: Promise<unknown>,
  ms: number | undefined,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const timer = ms === undefined ? undefined : setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
    void promise.then(done, done);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
