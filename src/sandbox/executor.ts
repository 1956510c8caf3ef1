/** @module The sandbox contract: run a program, answer its host calls, never throw. */
import type { CallDialect, JobOutcome, JobSpec, LogLevel } from './protocol.ts';

/** What the host answers to one guest call: the envelope it sees, or an end to the run. */
export type BridgeReply =
  /** `envelopeJson`, when given, is JSON.stringify(envelope), already made by the bridge. */
  | { envelope: unknown; envelopeJson?: string }
  | {
      fatal: {
        code: 'MAX_TOOL_CALLS_EXCEEDED' | 'EXECUTION_FAILED' | 'REPLAY_DIVERGED';
        message: string;
      };
    };

/** What the executor offers the bridge of one run. */
export interface RunClock {
  /**
   * Stops the run's wall-clock deadline until the returned release is called (a call waiting
   * for a person's decision): time the guest spends blocked on the host meanwhile does not
   * count, its own compute still does. Holds may overlap; each release is idempotent.
   */
  hold(): () => void;
  /**
   * The run no longer counts toward the pool's size (it yielded: it waits for its caller, not
   * for a worker), so other programs start on other workers; its own deadline is unchanged.
   */
  leavePool(): void;
}

/** The host side of one execution's calls, supplied by the execution service. */
export interface JobBridge {
  call(requestJson: string, dialect: CallDialect): Promise<BridgeReply>;
  batch(batchJson: string): Promise<BridgeReply>;
  log(level: LogLevel, line: string): void;
  /**
   * The wall-clock readings (epoch ms) the program took live since the previous call, batch
   * or log line, in order: called before the call, batch, log line or outcome that follows
   * them, never with an empty list. Readings answered from `JobSpec.replay` are not repeated.
   * A throw ends the run with EXECUTION_FAILED.
   */
  readings?(clock: number[]): void;
  /** Receives the run's clock once, before the program starts. */
  bindClock?(clock: RunClock): void;
}

/** Runs untrusted programs; every failure comes back as a JobOutcome. */
export interface SandboxExecutor {
  start(): Promise<void>;
  /** Ends every run still going with EXECUTION_FAILED and `reason` (default: the gateway is stopping). */
  stop(reason?: string): Promise<void>;
  /**
   * Runs one job. When `signal` aborts, the run ends at once with CANCELLED and the abort's
   * reason as its message (its worker is stopped, a queued job leaves the queue).
   */
  run(job: JobSpec, bridge: JobBridge, signal?: AbortSignal): Promise<JobOutcome>;
}
