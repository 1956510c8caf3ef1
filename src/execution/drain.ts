/** @module Shutdown for executions: refuse new runs, let running ones finish within a grace, then end the rest with a clear error. */
import type { JobBridge, JobOutcome, JobSpec, SandboxExecutor } from '../sandbox/index.ts';

export const SHUTTING_DOWN_MESSAGE = 'codemux is shutting down and accepts no new executions';

/** Wraps the pool: counts running jobs so shutdown can wait for them. */
export class DrainingExecutor implements SandboxExecutor {
  private running = 0;
  private draining = false;
  private onIdle: (() => void) | undefined;

  constructor(private readonly inner: SandboxExecutor) {}

  start(): Promise<void> {
    return this.inner.start();
  }

  stop(reason?: string): Promise<void> {
    return this.inner.stop(reason);
  }

  async run(job: JobSpec, bridge: JobBridge, signal?: AbortSignal): Promise<JobOutcome> {
    if (this.draining)
      return { ok: false, error: { code: 'EXECUTION_FAILED', message: SHUTTING_DOWN_MESSAGE } };
    this.running++;
    try {
      return await this.inner.run(job, bridge, signal);
    } finally {
      this.running--;
      if (this.running === 0) this.onIdle?.();
    }
  }

  /**
   * Refuses new runs, waits up to `graceMs` for the running ones, then ends those left
   * (`beforeStop` runs first: durable runs are marked left to a restart).
   */
  async drain(graceMs: number, beforeStop?: () => void): Promise<void> {
    this.draining = true;
    if (this.running > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.onIdle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    if (this.running > 0) beforeStop?.();
    if (this.running > 0)
      await this.inner.stop(
        `codemux is shutting down: the execution did not finish within shutdown_grace_ms (${graceMs} ms)`,
      );
  }
}
