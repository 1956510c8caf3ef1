/** @module Ends a child process and its process group for sure: close stdin, then SIGTERM, then SIGKILL. */
import type { ChildProcess } from 'node:child_process';
import { UPSTREAM_STOP_STDIN_GRACE_MS, UPSTREAM_STOP_TERM_GRACE_MS } from '../config/defaults.ts';

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

/** Resolves when the child has exited, or after `ms`; true when it exited. */
function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(exited(child));
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * Ends `child`: closes its stdin (a polite MCP server exits), SIGTERM after
 * UPSTREAM_STOP_STDIN_GRACE_MS, SIGKILL after UPSTREAM_STOP_TERM_GRACE_MS more. Whatever the
 * child did, its process group is sent SIGKILL at the end, so no descendant it started
 * outlives it. Never rejects.
 */
export async function endProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  try {
    child.stdin?.end();
  } catch {
    // A broken pipe is fine: the child is going away.
  }
  if (!(await waitExit(child, UPSTREAM_STOP_STDIN_GRACE_MS))) {
    signalGroup(child, 'SIGTERM');
    if (!(await waitExit(child, UPSTREAM_STOP_TERM_GRACE_MS))) {
      signalGroup(child, 'SIGKILL');
      await waitExit(child, UPSTREAM_STOP_TERM_GRACE_MS);
      return;
    }
  }
  // The child is gone; descendants left in its group are not.
  signalGroup(child, 'SIGKILL');
}
