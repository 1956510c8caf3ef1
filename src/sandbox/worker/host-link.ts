/**
 * @module The worker's end of the call port: posts calls and logs, and blocks the worker
 * (Atomics.wait) until the host's reply arrives, so a sync guest call costs one round trip.
 */
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { type CallMessage, type CallReply, SIGNAL } from '../protocol.ts';
import type { RunDeadline } from './run-deadline.ts';

/** Longest single wait while the clock is held; the held count is read again after each. */
const HELD_WAIT_SLICE_MS = 1000;

export class HostLink {
  private readonly signal: Int32Array;
  /** Replies that arrived while waiting for another one, by call id. */
  private readonly stash = new Map<number, CallReply>();
  private nextCallId = 1;

  constructor(
    private readonly port: MessagePort,
    signal: SharedArrayBuffer,
  ) {
    this.signal = new Int32Array(signal);
  }

  /** A new call id, unique for the life of the worker. */
  newCallId(): number {
    return this.nextCallId++;
  }

  post(message: CallMessage): void {
    this.port.postMessage(message);
  }

  /** Says whether the worker holds a prepared instance (the host prefers such a worker). */
  setPrepared(prepared: boolean): void {
    Atomics.store(this.signal, SIGNAL.prepared, prepared ? 1 : 0);
  }

  /** Forgets replies of earlier executions. */
  reset(): void {
    this.stash.clear();
    while (receiveMessageOnPort(this.port)) {}
  }

  private drain(execId: number): void {
    for (;;) {
      const received = receiveMessageOnPort(this.port);
      if (!received) return;
      const reply = received.message as CallReply;
      if (reply.execId === execId) this.stash.set(reply.callId, reply);
    }
  }

  /** Takes the reply for `callId` if it has arrived. */
  take(execId: number, callId: number): CallReply | undefined {
    this.drain(execId);
    const reply = this.stash.get(callId);
    if (reply) this.stash.delete(callId);
    return reply;
  }

  /** Takes any arrived reply among `callIds`, in arrival order of the ids given. */
  takeAny(execId: number, callIds: Iterable<number>): CallReply | undefined {
    this.drain(execId);
    for (const id of callIds) {
      const reply = this.stash.get(id);
      if (reply) {
        this.stash.delete(id);
        return reply;
      }
    }
    return undefined;
  }

  /**
   * Blocks until a reply that `pick` accepts arrives or the deadline passes (then undefined).
   * The signal is read before the port is drained, so a reply posted in between wakes the wait.
   * While the host holds the run's clock the wait ignores the deadline and its time goes to
   * `deadline.pause`; the host bumps the signal on every hold change, so each wait is cut
   * where the held count changes.
   */
  waitFor(deadline: RunDeadline, pick: () => CallReply | undefined): CallReply | undefined {
    for (;;) {
      const seen = Atomics.load(this.signal, SIGNAL.replies);
      const reply = pick();
      if (reply) return reply;
      if (Atomics.load(this.signal, SIGNAL.held) > 0) {
        const started = performance.now();
        Atomics.wait(this.signal, SIGNAL.replies, seen, HELD_WAIT_SLICE_MS);
        const waited = performance.now() - started;
        // Released: the host's total of held time is final and bounds ours.
        if (Atomics.load(this.signal, SIGNAL.held) === 0)
          deadline.pause(waited, Atomics.load(this.signal, SIGNAL.heldMs));
        else deadline.pause(waited);
        continue;
      }
      const remaining = deadline.atMs - Date.now();
      if (remaining <= 0) return undefined;
      Atomics.wait(this.signal, SIGNAL.replies, seen, remaining);
    }
  }
}
