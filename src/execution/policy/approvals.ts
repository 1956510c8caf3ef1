/**
 * @module Approvals: a call under `ask` is held before dispatch until a person decides, from
 * whichever channel answers first (the caller's own client or terminal, REST, the dashboard,
 * the CLI, another instance), or until it expires. The store is the record and the referee:
 * the first decision written wins on every instance.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { APPROVAL_RETENTION_DAYS, MAX_PENDING_APPROVALS } from '../../config/defaults.ts';
import {
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  memoryApprovalStore,
} from '../../store/index.ts';
import { metrics } from '../../telemetry/metrics.ts';
import { canonicalJson } from '../../util/canonical-json.ts';
import type { Logger } from '../../util/logger.ts';
import { sortableId } from '../../util/sortable-id.ts';
import { ACTIVITY_CODE_MAX_BYTES } from '../activity/bound.ts';
import { cutText } from '../activity/cut.ts';
import { shownArgs } from './approval-args.ts';
import type {
  ApprovalDesk,
  CallerChannel,
  Decision,
  DecisionAnswer,
  DecisionRefusal,
} from './types.ts';

/** Most approvals a listing returns. */
export const MAX_APPROVALS_LISTED = 500;

/** Lowercase hex SHA-256 of the arguments' canonical JSON (keys sorted): what a decision is bound to. */
export const argsDigest = (args: unknown): string =>
  createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('hex');

/** One call to hold, as the gate knows it. */
export interface HoldRequest {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
  /** `admin` or `token:<name>`. */
  caller: string;
  activityId: string | null;
  code: string | null;
  /** Keys whose values the shown arguments carry as "[redacted]" (activity_redact_keys). */
  redactKeys: readonly string[];
  timeoutMs: number;
  /** tool_policy.max_pending_per_caller: this caller's approvals pending at once here. */
  maxPendingPerCaller: number;
  /**
   * True when the run was left to a restart (its gateway stops, runs/runs.ts): an end of the
   * wait then leaves the approval pending for the resumed run, instead of expiring it.
   */
  keepOnAbort?: () => boolean;
}

/** How a hold ended: approved (send it), or a per-call refusal. */
export type HoldOutcome =
  | { ok: true; approval: ApprovalRecord }
  | {
      ok: false;
      code: 'APPROVAL_DENIED' | 'APPROVAL_TIMEOUT' | 'QUEUE_FULL';
      message: string;
      approval?: ApprovalRecord;
    };

/** A call waiting here: what ends its wait. */
interface Waiter {
  record: ApprovalRecord;
  settle(record: ApprovalRecord): void;
}

const approveCommand = (id: string) => `codemux approvals approve ${id}`;

export class Approvals implements ApprovalDesk {
  private readonly waiters = new Map<string, Waiter>();
  private readonly events = new EventEmitter();
  private readonly store: ApprovalStore;
  private unsubscribe?: () => void;

  constructor(
    private readonly instanceId: () => string,
    private readonly logger: Logger,
    store?: ApprovalStore,
  ) {
    // Without a database (standalone code exec without one) approvals live as long as the process.
    this.store = store ?? memoryApprovalStore();
    this.events.setMaxListeners(0);
  }

  /**
   * Hears decisions made on other instances; expires what an earlier run of this instance left
   * pending (its calls are gone); forgets decisions older than APPROVAL_RETENTION_DAYS.
   */
  async start(keep?: (approval: ApprovalRecord) => Promise<boolean>): Promise<void> {
    this.unsubscribe ??= this.store.onChange((id) => void this.onRemote(id));
    await this.store.trim(
      new Date(Date.now() - APPROVAL_RETENTION_DAYS * 86_400_000).toISOString(),
    );
    const now = new Date().toISOString();
    for (const left of await this.store.list({ status: 'pending', limit: MAX_APPROVALS_LISTED })) {
      if (left.instance_id === this.instanceId() && !this.waiters.has(left.id)) {
        // A journaled run's approval stays: the run resumes and waits on it again.
        if (await keep?.(left)) continue;
        await this.finish(left.id, 'expired', 'restart', now);
      }
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  get pendingCount(): number {
    return this.waiters.size;
  }

  /** Approvals of `caller` pending on this instance. */
  private pendingOf(caller: string): number {
    let count = 0;
    for (const waiter of this.waiters.values()) if (waiter.record.caller === caller) count++;
    return count;
  }

  subscribe(listener: (approval: ApprovalRecord) => void): () => void {
    this.events.on('approval', listener);
    return () => this.events.off('approval', listener);
  }

  async list(status?: ApprovalStatus): Promise<ApprovalRecord[]> {
    const items = await this.store.list({ status, limit: MAX_APPROVALS_LISTED });
    return items.map((a) => this.asSeen(a));
  }

  /** The whole arguments' JSON of a cut approval; null when it shows them whole; undefined: unknown id. */
  async wholeArgs(id: string): Promise<string | null | undefined> {
    return this.store.getArgs(id);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const record = this.waiters.get(id)?.record ?? (await this.store.get(id));
    return record && this.asSeen(record);
  }

  /** A pending approval past its expiry (its instance went away) reads as expired. */
  private asSeen(record: ApprovalRecord): ApprovalRecord {
    if (record.status !== 'pending' || this.waiters.has(record.id)) return record;
    if (Date.parse(record.expires_at) > Date.now()) return record;
    return { ...record, status: 'expired', decided_by: 'timeout', decided_at: record.expires_at };
  }

  async decide(
    id: string,
    decision: Decision,
    decidedBy: string,
    argsSha256?: string,
  ): Promise<DecisionAnswer> {
    const current = await this.get(id);
    if (!current) {
      return refusal(
        404,
        'APPROVAL_NOT_FOUND',
        `no approval ${id} (codemux approvals list shows them)`,
      );
    }
    if (argsSha256 !== undefined && argsSha256 !== current.args_sha256) {
      return refusal(
        409,
        'ARGS_MISMATCH',
        `args_sha256 ${argsSha256} is not the digest of approval ${id}'s arguments (${current.args_sha256}); nothing was decided: read the approval again and decide what it holds`,
        current,
      );
    }
    if (current.status !== 'pending') return this.decidedAlready(current);
    const outcome = await this.finish(
      id,
      decision === 'approve' ? 'approved' : 'denied',
      decidedBy,
      new Date().toISOString(),
    );
    if (outcome.outcome === 'missing') {
      return refusal(
        404,
        'APPROVAL_NOT_FOUND',
        `no approval ${id} (codemux approvals list shows them)`,
      );
    }
    if (outcome.outcome === 'already') return this.decidedAlready(outcome.approval);
    return { ok: true, approval: outcome.approval };
  }

  private decidedAlready(record: ApprovalRecord): DecisionRefusal {
    const seen = this.asSeen(record);
    if (seen.status === 'expired') {
      return refusal(
        410,
        'APPROVAL_EXPIRED',
        `approval ${seen.id} expired at ${seen.decided_at ?? seen.expires_at} (${seen.decided_by ?? 'timeout'}); the call was not sent`,
        seen,
      );
    }
    return refusal(
      409,
      'APPROVAL_DECIDED',
      `approval ${seen.id} was already ${seen.status} by ${seen.decided_by} at ${seen.decided_at}`,
      seen,
    );
  }

  /** Writes a decision (the store decides who was first) and wakes the call if it waits here. */
  private async finish(
    id: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    by: string,
    at: string,
  ) {
    const outcome = await this.store.decide(id, status, by, at);
    if (outcome.outcome === 'decided') {
      metrics().approvalDecided(status, by);
      this.waiters.get(id)?.settle(outcome.approval);
      this.events.emit('approval', outcome.approval);
    } else if (outcome.outcome === 'already') {
      // Decided elsewhere first: the waiter learns it now if it had not yet.
      this.waiters.get(id)?.settle(outcome.approval);
    }
    return outcome;
  }

  /** Another instance created or decided `id`. */
  private async onRemote(id: string): Promise<void> {
    try {
      const record = await this.store.get(id);
      if (!record) return;
      if (record.status !== 'pending') this.waiters.get(id)?.settle(record);
      this.events.emit('approval', record);
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message, approval: id },
        'reading an approval failed',
      );
    }
  }

  /**
   * Holds one call until it is decided, expires, or `signal` aborts (the request or the
   * execution ended). Never throws.
   */
  async hold(
    request: HoldRequest,
    signal: AbortSignal,
    channel: CallerChannel = {},
  ): Promise<HoldOutcome> {
    const name = `${request.server}.${request.tool}`;
    if (this.waiters.size >= MAX_PENDING_APPROVALS) {
      return {
        ok: false,
        code: 'QUEUE_FULL',
        message: `${name} needs approval, but ${MAX_PENDING_APPROVALS} approvals are already pending (the most this gateway holds); decide some (codemux approvals list) and call again; it was not sent`,
      };
    }
    // One caller cannot fill the gateway's slots for everyone.
    if (this.pendingOf(request.caller) >= request.maxPendingPerCaller) {
      return {
        ok: false,
        code: 'QUEUE_FULL',
        message: `${name} needs approval, but ${request.caller} already has ${request.maxPendingPerCaller} approvals pending (tool_policy.max_pending_per_caller); decide some (codemux approvals list) and call again; it was not sent`,
      };
    }
    const created = Date.now();
    const shown = shownArgs(request.args, request.redactKeys);
    const record: ApprovalRecord = {
      id: sortableId(created),
      status: 'pending',
      server: request.server,
      tool: request.tool,
      // Never cut silently: whole up to 64 KiB, else cut by key and saying which; the digest
      // covers them whole.
      args: shown.args,
      args_truncated: shown.whole !== null,
      args_cut_keys: shown.cutKeys,
      args_sha256: argsDigest(request.args),
      reason: request.reason,
      caller: request.caller,
      activity_id: request.activityId,
      code: request.code === null ? null : cutText(request.code, ACTIVITY_CODE_MAX_BYTES),
      created_at: new Date(created).toISOString(),
      expires_at: new Date(created + request.timeoutMs).toISOString(),
      decided_by: null,
      decided_at: null,
      instance_id: this.instanceId(),
    };
    try {
      const final = await this.waitHere(record, signal, channel, request.keepOnAbort, async () => {
        await this.store.create(record, shown.whole);
        this.events.emit('approval', record);
        this.logger.warn(
          {
            approval: record.id,
            server: request.server,
            tool: request.tool,
            caller: request.caller,
          },
          `${name} is held for approval ${record.id} (${request.reason}): approve with \`${approveCommand(record.id)}\`, deny with \`codemux approvals deny ${record.id}\`, or on the dashboard's Approvals page`,
        );
      });
      return outcomeOf(final, name, request.timeoutMs);
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message, approval: record.id },
        'holding a call failed',
      );
      return {
        ok: false,
        code: 'APPROVAL_TIMEOUT',
        message: `${name} could not be held for approval (${(error as Error).message}); it was not sent`,
      };
    }
  }

  /**
   * Waits here for `record`'s decision (`prepare` first: its creation, or a last read), until it
   * is decided on any channel, expires at its `expires_at`, or `signal` aborts (the run ended:
   * it expires, unless `keepOnAbort` says the run is left to a restart). Throws what `prepare`
   * throws.
   */
  private async waitHere(
    record: ApprovalRecord,
    signal: AbortSignal,
    channel: CallerChannel,
    keepOnAbort: (() => boolean) | undefined,
    prepare: (settle: (record: ApprovalRecord) => void) => Promise<void>,
  ): Promise<ApprovalRecord> {
    let settle!: (record: ApprovalRecord) => void;
    const decided = new Promise<ApprovalRecord>((resolve) => {
      settle = resolve;
    });
    this.waiters.set(record.id, { record, settle });
    const asking = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expire = (by: string) =>
      void this.finish(record.id, 'expired', by, new Date().toISOString()).catch(() =>
        settle({ ...record, status: 'expired', decided_by: by }),
      );
    const onAbort = () =>
      keepOnAbort?.()
        ? settle({ ...record, status: 'expired', decided_by: 'stopped' })
        : expire('cancelled');
    try {
      await prepare(settle);
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(
        () => expire('timeout'),
        Math.max(0, Date.parse(record.expires_at) - Date.now()),
      );
      void this.askChannel(channel, record, asking.signal);
      return await decided;
    } finally {
      clearTimeout(timer);
      asking.abort();
      signal.removeEventListener('abort', onAbort);
      this.waiters.delete(record.id);
    }
  }

  /**
   * Waits again on approval `id`, made for this call before its gateway stopped (a resumed
   * run, runs/run-journal.ts): decided, it ends the wait as `hold` would; still pending, it
   * waits for a decision until it expires or `signal` aborts. Never throws.
   */
  async rejoin(
    id: string,
    signal: AbortSignal,
    channel: CallerChannel = {},
    keepOnAbort?: () => boolean,
  ): Promise<HoldOutcome> {
    const record = await this.store.get(id).catch(() => undefined);
    if (!record) {
      return {
        ok: false,
        code: 'APPROVAL_TIMEOUT',
        message: `approval ${id} is gone (its gateway stopped and it was trimmed); the call was not sent`,
      };
    }
    const name = `${record.server}.${record.tool}`;
    const timeoutMs = Math.max(0, Date.parse(record.expires_at) - Date.parse(record.created_at));
    if (record.status !== 'pending') return outcomeOf(this.asSeen(record), name, timeoutMs);
    // The run shows it waits on it again (waiting_for); the caller's channel is asked again.
    const final = await this.waitHere(record, signal, channel, keepOnAbort, async (settle) => {
      // Decided while nobody waited here (between the stop and now): read it once more.
      const now = await this.store.get(id).catch(() => undefined);
      if (now && now.status !== 'pending') settle(now);
    });
    return outcomeOf(final, name, timeoutMs);
  }

  /** Asks the caller's own client or terminal; its answer is one decision among the others. */
  private async askChannel(
    channel: CallerChannel,
    record: ApprovalRecord,
    signal: AbortSignal,
  ): Promise<void> {
    if (!channel.ask) return;
    try {
      const answer = await channel.ask(record, signal);
      if (answer && !signal.aborted) await this.decide(record.id, answer.decision, answer.by);
    } catch (error) {
      if (!signal.aborted) {
        this.logger.info(
          { err: (error as Error).message, approval: record.id },
          'the caller was not asked; another channel decides',
        );
      }
    }
  }
}

function refusal(
  status: DecisionRefusal['status'],
  code: DecisionRefusal['code'],
  message: string,
  approval?: ApprovalRecord,
): DecisionRefusal {
  return { ok: false, status, code, message, ...(approval ? { approval } : {}) };
}

function outcomeOf(record: ApprovalRecord, name: string, timeoutMs: number): HoldOutcome {
  if (record.status === 'approved') return { ok: true, approval: record };
  if (record.status === 'denied') {
    return {
      ok: false,
      code: 'APPROVAL_DENIED',
      message: `${name} was denied by ${record.decided_by}`,
      approval: record,
    };
  }
  const why =
    record.decided_by === 'cancelled'
      ? 'the request ended before anyone decided'
      : `nobody decided within ${timeoutMs} ms (tool_policy.approval_timeout_ms)`;
  return {
    ok: false,
    code: 'APPROVAL_TIMEOUT',
    message: `${name} was not approved: approval ${record.id} expired, ${why}; it was not sent`,
    approval: record,
  };
}
