/** @module Ends a child process and its process group for sure: close stdin, then SIGTERM, then SIGKILL. */
import type { ChildProcess } from 'node:child_process';
import {
  SHUTDOWN_STOP_STDIN_GRACE_MS,
  SHUTDOWN_STOP_TERM_GRACE_MS,
  UPSTREAM_STOP_STDIN_GRACE_MS,
  UPSTREAM_STOP_TERM_GRACE_MS,
} from '../config/defaults.ts';

/**
 * How long a child is given at each step. Polite (a server removed by a reload) until
 * hurry(): then the shutdown schedule, for the children being ended already too.
 */
export class StopSchedule {
  private hurried = false;
  private readonly onHurry = new Set<() => void>();

  /** The gateway is stopping: every step from now on (and each one waiting) takes the short grace. */
  hurry(): void {
    if (this.hurried) return;
    this.hurried = true;
    for (const wake of this.onHurry) wake();
    this.onHurry.clear();
  }

  grace(step: 'stdin' | 'term'): number {
    if (step === 'stdin')
      return this.hurried ? SHUTDOWN_STOP_STDIN_GRACE_MS : UPSTREAM_STOP_STDIN_GRACE_MS;
    return this.hurried ? SHUTDOWN_STOP_TERM_GRACE_MS : UPSTREAM_STOP_TERM_GRACE_MS;
  }

  /** Calls `wake` once when hurry() comes; returns how to stop listening. */
  listen(wake: () => void): () => void {
    if (this.hurried) return () => {};
    this.onHurry.add(wake);
    return () => this.onHurry.delete(wake);
  }
}

/** Sends `signal` to the child's process group (it leads one when spawned detached), else to the child. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Resolves when the child has exited, or after the schedule's grace for `step` (shortened at
 * once when the schedule is hurried meanwhile); true when it exited.
 */
function waitExit(
  child: ChildProcess,
  schedule: StopSchedule,
  step: 'stdin' | 'term',
): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      unlisten();
      child.off('exit', done);
      resolve(exited(child));
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(done, Math.max(0, began + schedule.grace(step) - Date.now()));
    };
    const unlisten = schedule.listen(arm);
    child.once('exit', done);
    arm();
  });
}

/** The schedule of a child that nothing hurries (a registry passes its own). */
const POLITE = new StopSchedule();

/**
 * Ends `child`: closes its stdin (a polite MCP server exits), SIGTERM after the schedule's
 * stdin grace, SIGKILL after its term grace more. Whatever the child did, its process group
 * is sent SIGKILL at the end, so no descendant it started outlives it. Never rejects.
 */
export async function endProcess(child: ChildProcess, schedule = POLITE): Promise<void> {
  if (child.pid === undefined) return;
  try {
    child.stdin?.end();
  } catch {
    // A broken pipe is fine: the child is going away.
  }
  if (!(await waitExit(child, schedule, 'stdin'))) {
    signalGroup(child, 'SIGTERM');
    if (!(await waitExit(child, schedule, 'term'))) {
      signalGroup(child, 'SIGKILL');
      await waitExit(child, schedule, 'term');
      return;
    }
  }
  // The child is gone; descendants left in its group are not.
  signalGroup(child, 'SIGKILL');
}
