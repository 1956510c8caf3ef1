/**
 * @module Writes activity records off the request path: a bounded queue flushed in batches
 * (every ACTIVITY_FLUSH_MS or ACTIVITY_BATCH_RECORDS records), live subscribers told of each
 * record once written (by this instance, and by the others on the same PostgreSQL database),
 * retention trimming in the background, and a final flush on stop.
 */
import type { ActivityRecord, ActivityStore } from '../../store/index.ts';
import type { Logger } from '../../util/logger.ts';

export const ACTIVITY_FLUSH_MS = 100;
export const ACTIVITY_BATCH_RECORDS = 500;
/** Records waiting to be written; past it new ones are dropped and counted, never silently. */
export const ACTIVITY_MAX_QUEUED_RECORDS = 50_000;
export const ACTIVITY_TRIM_EVERY_MS = 60_000;
const DAY_MS = 86_400_000;

export interface RetentionPolicy {
  days: number;
  maxRecords: number;
}

export type QueuedRecord = ActivityRecord & { seq: number };
export type ActivityListener = (record: ActivityRecord) => void;

export interface ActivityCounters {
  queued: number;
  written: number;
  dropped: number;
  failed_writes: number;
}

export class ActivityRecorder {
  private queue: QueuedRecord[] = [];
  private readonly listeners = new Set<ActivityListener>();
  private timer: NodeJS.Timeout | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private stopped = false;
  /** Stops hearing of records other instances write (several instances on one database). */
  private stopRemote: (() => void) | undefined;
  private readonly counters = { written: 0, dropped: 0, failed_writes: 0 };

  constructor(
    private readonly store: ActivityStore,
    private readonly logger: Logger,
    private readonly retention: () => RetentionPolicy,
  ) {}

  /** Starts background retention; idempotent. */
  start(): void {
    if (this.trimTimer || this.stopped) return;
    void this.trim();
    this.trimTimer = setInterval(() => void this.trim(), ACTIVITY_TRIM_EVERY_MS);
    this.trimTimer.unref();
  }

  /** Queues records for the next batch; never blocks the caller. */
  record(records: readonly QueuedRecord[]): void {
    if (this.stopped) return;
    const room = ACTIVITY_MAX_QUEUED_RECORDS - this.queue.length;
    if (records.length > room) {
      const lost = records.length - Math.max(0, room);
      this.counters.dropped += lost;
      this.logger.warn(
        { dropped: lost, total_dropped: this.counters.dropped },
        'activity queue full: records dropped (the database is not keeping up)',
      );
    }
    if (room > 0) this.queue.push(...records.slice(0, room));
    if (this.queue.length >= ACTIVITY_BATCH_RECORDS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), ACTIVITY_FLUSH_MS);
  }

  /**
   * Live feed of records as they are written, this instance's and (on a shared PostgreSQL
   * database) the other instances'; returns the unsubscribe function. Other instances' records
   * are read back only while somebody listens.
   */
  subscribe(listener: ActivityListener): () => void {
    this.listeners.add(listener);
    if (!this.stopped)
      this.stopRemote ??= this.store.onRemoteInsert?.((records) => {
        for (const record of records) for (const l of this.listeners) l(record);
      });
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.stopRemote?.();
      this.stopRemote = undefined;
    };
  }

  get stats(): ActivityCounters {
    return { queued: this.queue.length, ...this.counters };
  }

  /** Writes everything queued so far (one batch at a time, in order). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, ACTIVITY_BATCH_RECORDS);
      try {
        await this.store.insert(batch);
        this.counters.written += batch.length;
      } catch (error) {
        this.counters.failed_writes++;
        this.counters.dropped += batch.length;
        this.logger.error(
          { err: (error as Error).message, dropped: batch.length },
          'writing activity records failed',
        );
        continue;
      }
      for (const { seq: _seq, ...record } of batch) {
        for (const listener of this.listeners) listener(record);
      }
    }
  }

  private async trim(): Promise<void> {
    const { days, maxRecords } = this.retention();
    try {
      const before = new Date(Date.now() - days * DAY_MS).toISOString();
      const removed = await this.store.trim(before, maxRecords);
      if (removed > 0) this.logger.info({ removed }, 'activity retention trimmed old records');
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'activity retention failed');
    }
  }

  /** Flushes what is queued and stops; idempotent. Records after stop are ignored. */
  async stop(): Promise<void> {
    clearInterval(this.trimTimer);
    this.trimTimer = undefined;
    this.stopRemote?.();
    this.stopRemote = undefined;
    await this.flush();
    this.stopped = true;
    this.listeners.clear();
  }
}
