/** @module Approvals kept in memory: the store of a runtime without a database (they last as long as the process). */
import type { ApprovalRecord, ApprovalStore, HeldRunRecord } from './approval-store.ts';

/**
 * Approvals and held runs in this process, as the databases keep them: every record is copied
 * in and out (like a row, it never shares objects with its caller), and the whole arguments are
 * kept only for an approval whose `args` were cut.
 */
export function memoryApprovalStore(): ApprovalStore {
  const records = new Map<string, ApprovalRecord>();
  const runs = new Map<string, HeldRunRecord>();
  const wholeArgs = new Map<string, string | null>();
  return {
    async create(approval, argsWhole) {
      records.set(approval.id, structuredClone(approval));
      wholeArgs.set(approval.id, approval.args_truncated ? (argsWhole ?? null) : null);
    },
    async getArgs(id) {
      return records.has(id) ? (wholeArgs.get(id) ?? null) : undefined;
    },
    async get(id) {
      const record = records.get(id);
      return record && structuredClone(record);
    },
    async list({ status, limit }) {
      return [...records.values()]
        .filter((a) => status === undefined || a.status === status)
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map((a) => structuredClone(a));
    },
    async decide(id, status, decidedBy, decidedAt) {
      const record = records.get(id);
      if (!record) return { outcome: 'missing' };
      if (record.status !== 'pending') {
        return { outcome: 'already', approval: structuredClone(record) };
      }
      Object.assign(record, { status, decided_by: decidedBy, decided_at: decidedAt });
      return { outcome: 'decided', approval: structuredClone(record) };
    },
    async trim(before) {
      let removed = 0;
      for (const [id, a] of records) {
        if (a.status !== 'pending' && a.created_at < before) {
          records.delete(id);
          wholeArgs.delete(id);
          removed++;
        }
      }
      return removed;
    },
    onChange: () => () => {},
    async putRun(run) {
      runs.set(run.id, structuredClone(run));
    },
    async getRun(id) {
      const run = runs.get(id);
      return run && structuredClone(run);
    },
    async trimRuns(now) {
      let removed = 0;
      for (const [id, run] of runs) {
        if (run.expires_at < now) {
          runs.delete(id);
          removed++;
        }
      }
      return removed;
    },
    onRunChange: () => () => {},
  };
}
