/**
 * @module Right after a run, a worker whose jobs have been coming back to back polls briefly
 * for the next one (hand-off.ts), so a client's next request does not wait for this thread to
 * wake. Jobs still arrive as messages on the worker's port; polling only takes one early.
 */
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { AdaptiveSpin, SIGNAL, type SpinGate } from '../hand-off.ts';
import type { HostToWorker } from '../protocol.ts';

/** Longest a worker polls for its next job after a run. */
const NEXT_JOB_SPIN_MAX_US = 1000;

export class NextJob {
  private readonly signal: Int32Array;
  private readonly spin = new AdaptiveSpin(NEXT_JOB_SPIN_MAX_US);
  /** When the last run ended (ms), until the next job arrives. */
  private idleSinceMs = 0;

  constructor(
    private readonly port: MessagePort,
    signal: SharedArrayBuffer,
    private readonly gate: SpinGate,
  ) {
    this.signal = new Int32Array(signal);
  }

  /** A job arrived (either way): learns the gap since the last run. */
  arrived(): void {
    if (!this.idleSinceMs) return;
    this.spin.observe((performance.now() - this.idleSinceMs) * 1000);
    this.idleSinceMs = 0;
  }

  /** After a run: the next job if it arrives within the poll, else undefined (it will come as a message). */
  poll(): HostToWorker | undefined {
    this.idleSinceMs = performance.now();
    const seen = Atomics.load(this.signal, SIGNAL.jobs);
    if (!this.gate.enter()) return undefined;
    let caught: boolean;
    try {
      caught = this.spin.poll(() => Atomics.load(this.signal, SIGNAL.jobs) !== seen);
    } finally {
      this.gate.leave();
    }
    return caught
      ? (receiveMessageOnPort(this.port)?.message as HostToWorker | undefined)
      : undefined;
  }
}
