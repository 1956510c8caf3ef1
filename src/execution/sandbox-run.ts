/**
 * @module The one sandbox run both dialects' services share (code_execution and code tools in
 * service.ts, code mode's `execute` in code-mode-service.ts): the run's deadline, its call gate,
 * the program in the executor, and the gate closed when it ends. What the answer looks like is
 * each dialect's own.
 */
import type { Catalog } from '../catalog/index.ts';
import { MAX_LOG_LINE_BYTES, MAX_LOG_LINES } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { JobOutcome, JobSpec, SandboxExecutor } from '../sandbox/index.ts';
import type { UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { CallGate, type GateOptions } from './call-gate.ts';
import type { CallPolicy } from './policy/call-policy.ts';
import type { RunControl } from './runs/live-run.ts';
import type { ToolPins } from './tool-pins.ts';
import type { Caller } from './types.ts';

/** What a sandbox run uses of the runtime. */
export interface SandboxRunDeps {
  registry: UpstreamRegistry;
  catalog: Catalog;
  executor: SandboxExecutor;
  logger: Logger;
  /** Tool-definition pins: a held tool is refused before dispatch (absent: nothing is held). */
  pins?: ToolPins;
}

/** One program ready to run, and the limits it runs under. */
export interface SandboxRunSpec {
  config: ResolvedConfig;
  caller: Caller;
  /** The run's tool policy (closed with the gate when the run ends). */
  policy: CallPolicy;
  /** The program, its globals and the prelude globals its dialect hides. */
  job: Omit<JobSpec, 'limits' | 'memoryLimitBytes'>;
  /** Wall-clock time from now until the program is interrupted. */
  timeoutMs: number;
  memoryLimitBytes: number;
  /** 0 = no limit (code mode bounds host calls instead). */
  maxToolCalls: number;
  /** The servers its calls may reach (reachableServers); undefined = every server. */
  allowedServers: ReadonlySet<string> | undefined;
  /** The worker's own limits besides the deadline and the console bounds. */
  limits: Omit<JobSpec['limits'], 'deadlineMs' | 'maxLogLines' | 'maxLogLineBytes'>;
  /** Gate options one dialect sets and the other leaves at their defaults. */
  gate?: Pick<GateOptions, 'dryRun' | 'maxConcurrentToolCalls' | 'maxResultBytes'>;
  /** Ends the run at once with CANCELLED, the abort's reason as its message. */
  signal?: AbortSignal;
  /** The run as its waiters see it: its console lines and calls while it goes on. */
  watch?: RunControl;
}

/** How the run ended, and its closed gate: the console lines, the trace, the calls made. */
export interface SandboxRunEnd {
  outcome: JobOutcome;
  gate: CallGate;
}

/** Runs one program in the sandbox with its calls going through a new gate; never throws for the program's own failures. */
export async function runInSandbox(
  deps: SandboxRunDeps,
  spec: SandboxRunSpec,
): Promise<SandboxRunEnd> {
  const deadlineMs = Date.now() + spec.timeoutMs;
  const gate = new CallGate({
    registry: deps.registry,
    catalog: deps.catalog,
    config: spec.config,
    maxToolCalls: spec.maxToolCalls,
    allowedServers: spec.allowedServers,
    deadlineMs,
    logger: deps.logger,
    ...spec.gate,
    memoryLimitBytes: spec.memoryLimitBytes,
    caller: spec.caller,
    pins: deps.pins,
    policy: spec.policy,
    ...(spec.watch ? { onLog: (line: string) => spec.watch!.logged(line) } : {}),
    ...(spec.watch?.journal ? { journal: spec.watch.journal } : {}),
    span: spec.watch?.span,
  });
  spec.watch?.attach(gate);
  const journal = spec.watch?.journal;
  const outcome = await deps.executor.run(
    {
      ...spec.job,
      // A journaled run's random numbers and clock readings come out the same on a resume.
      ...(journal ? { seed: journal.seed } : {}),
      ...(journal?.replaying ? { replay: { clock: journal.replayClock } } : {}),
      memoryLimitBytes: spec.memoryLimitBytes,
      limits: {
        deadlineMs,
        maxLogLines: MAX_LOG_LINES,
        maxLogLineBytes: MAX_LOG_LINE_BYTES,
        ...spec.limits,
      },
    },
    gate,
    spec.signal,
  );
  // Calls still in flight when the program ends are cancelled.
  gate.close();
  return { outcome, gate };
}
