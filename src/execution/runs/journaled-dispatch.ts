/**
 * @module A call and a catalog read through the run's journal: on a resumed run each is answered
 * from the journal while it holds one (no upstream traffic), a call that was in flight at the
 * stop gets "outcome unknown" (never sent again), a different ask ends the run
 * (REPLAY_DIVERGED); past the journal, each goes out live and is journaled before it is sent
 * and before its answer reaches the program.
 */
import type { CallOutcome } from '../../upstream/index.ts';
import { argsDigest } from '../policy/approvals.ts';
import { outcomeUnknown, type RunJournal, replayDiverged } from './run-journal.ts';

/** The resumed program asked for something other than its journal holds. */
export class ReplayDiverged extends Error {
  constructor(readonly detail: string) {
    super(replayDiverged(detail).message);
  }
}

/** One upstream call, journaled (interaction `at` of the run). */
export async function journaledCall(
  journal: RunJournal,
  at: number,
  request: { server: string; tool: string; args: Record<string, unknown> },
  live: () => Promise<CallOutcome>,
): Promise<CallOutcome> {
  const what = `${request.server}.${request.tool}`;
  const digest = argsDigest(request.args);
  const step = journal.replayed(at, what, digest);
  if (step && 'diverged' in step) throw new ReplayDiverged(step.diverged);
  if (step && 'answer' in step) return step.answer as CallOutcome;
  if (step && 'unknown' in step) {
    const outcome = outcomeUnknown(request.server, request.tool);
    // A second stop replays the same answer.
    await journal.answered(at, outcome);
    return outcome;
  }
  await journal.sent(at, {
    what,
    server: request.server,
    tool: request.tool,
    args_sha256: digest,
  });
  const outcome = await live();
  await journal.answered(at, outcome);
  return outcome;
}

/** One catalog read, journaled: a resumed run reads what it read before. */
export async function journaledCatalog(
  journal: RunJournal,
  at: number,
  op: string,
  params: unknown,
  live: () => unknown,
): Promise<unknown> {
  const what = `catalog.${op}`;
  const digest = argsDigest(params ?? {});
  const step = journal.replayed(at, what, digest);
  if (step && 'diverged' in step) throw new ReplayDiverged(step.diverged);
  if (step && 'answer' in step) return step.answer;
  const envelope = live();
  await journal.sent(at, { what, args_sha256: digest });
  await journal.answered(at, envelope);
  return envelope;
}
