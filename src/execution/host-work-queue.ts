/**
 * @module Host work done for one execution (catalog operations, schema checks) runs one
 * piece at a time, each after a turn of the event loop: a guest that fires 10,000
 * catalog calls at once gets them answered one per turn, and every other execution's
 * requests, I/O and replies interleave between them.
 */

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class HostWorkQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** Runs `work` after the pieces queued before it and a turn of the event loop; rejects once closed. */
  run<T>(work: () => T): Promise<T> {
    const result = this.tail.then(nextTurn).then(() => {
      if (this.closed) throw new Error('the execution has ended');
      return work();
    });
    this.tail = result.catch(() => {});
    return result;
  }

  /** Pieces still queued are dropped (their execution is over); idempotent. */
  close(): void {
    this.closed = true;
  }
}
