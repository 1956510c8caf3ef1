/**
 * @module Progress for a request that waits on a run (it carries a progressToken): a line at
 * least every 10 s and on each new console line or approval awaited, at most two a second,
 * naming the approval awaited or the last console line.
 */
import type { AwaitedApproval, AwaitedInput, LiveRun, RunSnapshot } from './live-run.ts';

/** The longest a waiting request goes without a progress line. */
export const PROGRESS_HEARTBEAT_MS = 10_000;
/** The shortest time between two progress lines (two a second). */
export const PROGRESS_MIN_GAP_MS = 500;

/** What a waiter is told of `run` now. */
export function progressLine(run: LiveRun): string {
  const input = [...run.waitingForInput.values()][0];
  if (input && run.waitingFor.size === 0) return inputLine(input);
  return lineOf([...run.waitingFor.values()][0], run.lastLog, Date.now() - run.startedAt);
}

/** A line naming an upstream's request for input and how to answer it. */
export function inputLine(input: AwaitedInput): string {
  const who = input.tool === null ? input.server : `${input.server}.${input.tool}`;
  return `waiting for input ${input.input_id} asked by ${who}: answer with \`codemux input answer ${input.input_id}\` or on the dashboard's Approvals page`;
}

/** What a waiter is told of a run of another instance, from its stored snapshot. */
export function snapshotLine(snapshot: RunSnapshot): string {
  const input = snapshot.waiting_for_input?.[0];
  if (input && snapshot.waiting_for.length === 0) return inputLine(input);
  return lineOf(snapshot.waiting_for[0], snapshot.logs.at(-1), snapshot.elapsed_ms);
}

/** The approval awaited, else the last console line, else how long the run has gone on. */
function lineOf(
  awaited: AwaitedApproval | undefined,
  line: string | undefined,
  elapsedMs: number,
): string {
  if (awaited) {
    return `waiting for approval ${awaited.approval_id} of ${awaited.server}.${awaited.tool}: decide with \`codemux approvals approve ${awaited.approval_id}\` or on the dashboard's Approvals page`;
  }
  if (line !== undefined) return `still running: ${line}`;
  return `still running (${Math.round(elapsedMs / 1000)} s)`;
}

/**
 * Sends `progress` lines about `run` until the returned stop is called (or the run ends); the
 * first at once when `atOnce` (a wait on a run already going), else after an event or 10 s.
 */
export function followProgress(
  run: LiveRun,
  progress: (message: string) => void,
  atOnce: boolean,
): () => void {
  let last = Date.now();
  let pending: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  const send = () => {
    clearTimeout(pending);
    pending = undefined;
    if (run.done) return;
    last = Date.now();
    progress(progressLine(run));
    clearTimeout(beat);
    beat = setTimeout(send, PROGRESS_HEARTBEAT_MS);
    beat.unref();
  };
  const soon = () => {
    if (pending) return;
    const gap = last + PROGRESS_MIN_GAP_MS - Date.now();
    if (gap <= 0) send();
    else pending = setTimeout(send, gap);
  };
  const unlisten = run.on((event) => {
    if (event === 'end') stop();
    else soon();
  });
  function stop() {
    clearTimeout(beat);
    clearTimeout(pending);
    unlisten();
  }
  if (atOnce) send();
  else {
    last = 0;
    beat = setTimeout(send, PROGRESS_HEARTBEAT_MS);
    beat.unref();
  }
  return stop;
}
