/** @module Turns one finished execution and the calls it made into activity records. */
import type { ResolvedConfig } from '../../config/index.ts';
import type { ActivitySurface } from '../../store/index.ts';
import { metrics } from '../../telemetry/metrics.ts';
import { sortableId } from '../../util/sortable-id.ts';
import type { CallDetail } from '../call-trace.ts';
import type { Caller, Envelope } from '../types.ts';
import { boundRecord } from './bound.ts';
import { cutForActivity } from './cut.ts';
import type { ActivityRecorder, QueuedRecord } from './recorder.ts';
import { activityStatus } from './status.ts';

/** What is known of an execution when it starts. */
export interface RunFacts {
  id: string;
  surface: ActivitySurface;
  /** Where a code tool's call came from when not over MCP (the metrics' surface; `surface` says code_tool). */
  via?: ActivitySurface;
  caller: Caller;
  /** Epoch milliseconds. */
  startedAt: number;
  /** `performance.now()` at the same moment: the origin of its calls' `offset_ms`. */
  startedPerf?: number;
  /** A code tool's name. */
  tool?: string;
  script?: string;
  language?: string;
  code?: string;
  input?: unknown;
  /** A dry run: its upstream calls were answered with a stub. */
  dryRun?: boolean;
  /** How many times the run was resumed from its journal (runs/run-journal.ts). */
  resumed?: number;
  /** True when the run was left to a restart (its instance stopped): it is not recorded here. */
  abandoned?: () => boolean;
}

/** A new execution's facts: its record's id and start, before anything can fail. */
export function newRunFacts(
  surface: ActivitySurface,
  caller: Caller,
  run?: { id: string; journal?: { resumedCount: number }; abandoned?: boolean },
): RunFacts {
  const facts: RunFacts = {
    id: run?.id ?? sortableId(),
    surface,
    caller,
    startedAt: Date.now(),
    startedPerf: performance.now(),
  };
  if (run?.journal?.resumedCount) facts.resumed = run.journal.resumedCount;
  if (run) facts.abandoned = () => run.abandoned === true;
  return facts;
}

/**
 * The id the execution's record will have when the history is on, else undefined: known
 * before the answer is fitted, since the activity_id it carries counts toward the output bound.
 */
export function activityIdFor(
  recorder: ActivityRecorder | undefined,
  config: ResolvedConfig,
  facts: RunFacts,
): string | undefined {
  return recorder && config.activity.enabled ? facts.id : undefined;
}

/** Counts an ended execution in the metrics (telemetry/metrics.ts); nothing is computed while they are off. */
function countRun(facts: RunFacts, envelope: Envelope, durationMs: number): void {
  const sink = metrics();
  if (!sink.on) return;
  const error = envelope.ok ? undefined : envelope.error;
  sink.executionEnded({
    surface: facts.surface,
    via: facts.via,
    status: activityStatus(error?.code, error?.message),
    durationMs,
  });
}

/**
 * Queues a finished execution and its calls when the history is on (`activity_enabled`);
 * returns the execution's record id, or undefined when nothing was recorded.
 */
export function recordRun(
  recorder: ActivityRecorder | undefined,
  config: ResolvedConfig,
  facts: RunFacts,
  envelope: Envelope,
  durationMs: number,
  calls: readonly CallDetail[],
): string | undefined {
  if (facts.abandoned?.()) return undefined;
  countRun(facts, envelope, durationMs);
  if (!activityIdFor(recorder, config, facts)) return undefined;
  recorder!.record(
    activityRecords(
      facts,
      config.instanceId,
      envelope,
      durationMs,
      calls,
      config.activity.redactKeys,
    ),
  );
  return facts.id;
}

/**
 * `offset_ms` of a call: from the execution's start to the start of the call's `duration_ms`,
 * on the monotonic clock (to the hundredth of a millisecond), so the call ran over
 * [offset_ms, offset_ms + duration_ms] of the execution's time axis.
 */
function callOffset(facts: RunFacts, call: CallDetail): { offset_ms?: number } {
  if (facts.startedPerf === undefined || call.began === undefined) return {};
  return { offset_ms: Math.round((call.began - facts.startedPerf) * 100) / 100 };
}

export const callerLabel = (caller: Caller): string =>
  caller.kind === 'admin' ? 'admin' : `token:${caller.name}`;

/**
 * The execution's record, then one per call in the order the program made them; the input's
 * values under keys like `redactKeys` are stored redacted (the gate redacts the calls' args).
 */
export function activityRecords(
  facts: RunFacts,
  instanceId: string,
  envelope: Envelope,
  durationMs: number,
  calls: readonly CallDetail[],
  redactKeys: readonly string[] = [],
): QueuedRecord[] {
  const caller = callerLabel(facts.caller);
  const error = envelope.ok ? null : { code: envelope.error.code, message: envelope.error.message };
  const execution: QueuedRecord = {
    id: facts.id,
    parent_id: null,
    seq: 0,
    kind: 'execution',
    surface: facts.surface,
    caller,
    server: null,
    tool: facts.tool ?? null,
    script: facts.script ?? null,
    language: facts.language ?? null,
    code: facts.code ?? null,
    input: cutForActivity(facts.input, redactKeys),
    args: null,
    status: activityStatus(error?.code, error?.message),
    error,
    started_at: new Date(facts.startedAt).toISOString(),
    duration_ms: durationMs,
    logs: envelope.logs ?? [],
    response: cutForActivity(envelope),
    instance_id: instanceId,
    ...(facts.dryRun ? { dry_run: true as const } : {}),
    ...(facts.resumed ? { resumed: facts.resumed } : {}),
  };
  const children = calls.map((call, i): QueuedRecord => {
    const code = call.entry.ok ? undefined : call.entry.code;
    return {
      id: `${facts.id}.${String(i + 1).padStart(4, '0')}`,
      parent_id: facts.id,
      seq: i + 1,
      kind: 'tool_call',
      surface: facts.surface,
      caller,
      server: call.entry.server,
      tool: call.entry.tool,
      script: null,
      language: null,
      code: null,
      input: null,
      // The gate keeps a call's args (redacted) and answer already cut.
      args: call.args,
      status: activityStatus(code, call.message),
      error: code ? { code, message: call.message ?? code } : null,
      started_at: new Date(call.startedAt).toISOString(),
      duration_ms: call.entry.duration_ms,
      ...callOffset(facts, call),
      logs: call.notes ? [...call.notes] : [],
      response: call.response ?? null,
      instance_id: instanceId,
      approval_id: call.approvalId ?? null,
      ...(facts.dryRun ? { dry_run: true as const } : {}),
    };
  });
  // Every record within its bounds, whatever the request or the program put in it.
  return [boundRecord(execution), ...children.map(boundRecord)];
}
