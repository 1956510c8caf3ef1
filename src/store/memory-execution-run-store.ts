/** @module Yielded runs kept in memory: the store of a runtime without a database (tests; one process). */
import type { ExecutionRunRecord, ExecutionRunStore } from './execution-run-store.ts';

/** Runs in this process, as the databases keep them: every record is copied in and out. */
export function memoryExecutionRunStore(): ExecutionRunStore {
  const runs = new Map<string, ExecutionRunRecord>();
  return {
    async put(run) {
      const kept = runs.get(run.id)?.cancel_requested_by ?? null;
      runs.set(run.id, structuredClone({ ...run, cancel_requested_by: kept }));
    },
    async get(id) {
      const run = runs.get(id);
      return run && structuredClone(run);
    },
    async list({ now, owner, limit }) {
      return [...runs.values()]
        .filter((r) => r.expires_at >= now && (owner === undefined || r.owner === owner))
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map((r) => structuredClone(r));
    },
    async requestCancel(id, by, now) {
      const run = runs.get(id);
      if (run?.status !== 'running' || run.expires_at < now) return false;
      run.cancel_requested_by ??= by;
      return true;
    },
    async cancelRequests(instanceId) {
      return [...runs.values()]
        .filter(
          (r) =>
            r.instance_id === instanceId &&
            r.status === 'running' &&
            r.cancel_requested_by !== null,
        )
        .map((r) => ({ id: r.id, by: r.cancel_requested_by! }));
    },
    async trim(now) {
      let removed = 0;
      for (const [id, run] of runs) {
        if (run.expires_at < now) {
          runs.delete(id);
          removed++;
        }
      }
      return removed;
    },
    onChange: () => () => {},
  };
}
