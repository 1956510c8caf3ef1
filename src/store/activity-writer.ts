/**
 * @module The SQLite activity history's writer thread (issue 37): inserts go to a worker thread
 * with its own connection to the database file, so the gateway thread hands a batch over (one
 * structured clone) instead of binding and committing it. Started at the first batch (a CLI
 * that only reads never starts it); referenced only while a batch is in flight, and `close`
 * waits for every batch sent: nothing handed over is lost on a stop.
 */
import { Worker } from 'node:worker_threads';
import type { ActivityRecord } from './activity-store.ts';

export type WriterRequest =
  | { type: 'insert'; id: number; records: ReadonlyArray<ActivityRecord & { seq: number }> }
  | { type: 'close' };

export type WriterReply = { type: 'written'; id: number; error?: string } | { type: 'closed' };

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The worker's module: compiled JavaScript in dist/, through tsx when run from the sources. */
function writerEntry(): URL {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(
    fromSource ? './activity-writer-entry.js' : './activity-writer-worker.js',
    import.meta.url,
  );
}

export class ActivityWriter {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Every batch sent and not yet answered (close waits for them). */
  private readonly inFlight = new Set<Promise<void>>();
  private closing?: Promise<void>;

  constructor(private readonly file: string) {}

  /** Commits `records` on the writer thread; resolves once they are in the database. */
  insert(records: ReadonlyArray<ActivityRecord & { seq: number }>): Promise<void> {
    if (this.closing) return Promise.reject(new Error('the activity writer is closed'));
    const worker = this.started();
    const id = this.nextId++;
    const written = new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ type: 'insert', id, records } satisfies WriterRequest);
    });
    this.inFlight.add(written);
    const settled = () => this.inFlight.delete(written);
    written.then(settled, settled);
    return written;
  }

  /** Waits for every batch sent, then closes the thread's connection and ends it. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.allSettled([...this.inFlight]);
    if (this.worker !== worker) return;
    worker.ref();
    await new Promise<void>((done) => {
      worker.once('exit', () => done());
      worker.on('message', (reply: WriterReply) => {
        if (reply.type === 'closed') void worker.terminate();
      });
      worker.postMessage({ type: 'close' } satisfies WriterRequest);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(writerEntry(), { workerData: { file: this.file } });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      if (reply.type !== 'written') return;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error) waiter.reject(new Error(reply.error));
      else waiter.resolve();
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the activity writer thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
