/**
 * @module A journaled run started again after its instance stopped: the same tool, caller,
 * arguments and id, its journal answering what it already did (run-journal.ts). A code tool
 * that no longer exists cannot be run again: the run ends with REPLAY_DIVERGED.
 */
import type { CodeTool, JournalEntry, JournalRun } from '../../store/index.ts';
import type { Caller } from '../types.ts';
import {
  type RunCallDeps,
  refusedResult,
  startCodeExecution,
  startCodeTool,
  startExecute,
} from './run-calls.ts';
import { replayDiverged } from './run-journal.ts';

/** What resuming a run needs besides the runs and services: the code tools, by name. */
export interface ResumeDeps extends RunCallDeps {
  codeTool(name: string): CodeTool | undefined;
}

/** Starts run `record` again from its journal `entries`; it goes on as a kept run. */
export async function resumeRun(
  deps: ResumeDeps,
  record: JournalRun,
  entries: JournalEntry[],
): Promise<void> {
  const caller = record.caller as Caller;
  const resumed = { record, entries };
  if (record.kind === 'execute') {
    await startExecute(deps, record.request, caller, { resumed });
    return;
  }
  if (record.kind === 'code_execution') {
    const surface = record.surface as NonNullable<
      Parameters<typeof startCodeExecution>[3]['run']
    >['surface'];
    await startCodeExecution(deps, record.request, caller, { resumed, run: { surface } });
    return;
  }
  const tool = record.tool ? deps.codeTool(record.tool) : undefined;
  if (tool) {
    await startCodeTool(deps, tool, record.request, caller, { resumed });
    return;
  }
  await deps.runs.start(
    'code_tool',
    caller,
    {},
    async () =>
      refusedResult(
        replayDiverged(
          `names the code tool "${record.tool}", which no longer exists, so it runs nothing else`,
        ),
      ),
    { tool: record.tool ?? undefined, resumed },
  );
}
