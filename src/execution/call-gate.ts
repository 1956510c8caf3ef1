/**
 * @module The host side of one execution's tool calls: the shape of what the guest sent
 * (judged again here), budget (call-budget.ts), allowed servers and quarantine
 * (server-access.ts), checked in input order before dispatch; parallel batches; the trace in
 * submission order; cancellation of everything in flight when the execution ends.
 */
import type { Catalog } from '../catalog/index.ts';
import { BATCH_RESULTS_MEMORY_DIVISOR } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type {
  BridgeReply,
  CallDialect,
  CallRequest,
  JobBridge,
  LogLevel,
  RunClock,
} from '../sandbox/index.ts';
import type { TraceSpan } from '../telemetry/index.ts';
import { type CallOutcome, ConcurrencyLimiter, type UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { CallBudget } from './call-budget.ts';
import { batchShape, callShape } from './call-shape.ts';
import { type CallDetail, type CallFacts, CallTrace, type Finish } from './call-trace.ts';
import { messageFor } from './caller-view.ts';
import { dryRunOutcome } from './dry-run.ts';
import {
  asyncEnvelope,
  asyncFailure,
  boundedOutcome,
  syncEnvelope,
  syncEnvelopeJson,
  syncFailure,
} from './envelopes.ts';
import { HostWorkQueue } from './host-work-queue.ts';
import { argsRefusal } from './input-validator.ts';
import type { CallPolicy } from './policy/call-policy.ts';
import type { PolicyVerdict } from './policy/tool-policy.ts';
import { journaledCall, journaledCatalog, ReplayDiverged } from './runs/journaled-dispatch.ts';
import type { RunJournal } from './runs/run-journal.ts';
import { serverRefusal } from './server-access.ts';
import { ADMIN, type Caller, type ToolCallRecord } from './types.ts';

export interface GateOptions {
  registry: UpstreamRegistry;
  catalog: Catalog;
  config: ResolvedConfig;
  maxToolCalls: number;
  /** The servers this execution may call (allowed_servers intersected with the caller's scope); undefined = all. */
  allowedServers?: ReadonlySet<string>;
  deadlineMs: number;
  logger: Logger;
  /** Awaited tools.* calls in flight at once (default: code_execution_max_parallel). */
  maxConcurrentToolCalls?: number;
  /** One upstream result entering the sandbox, as JSON (default: code_execution_max_result_bytes). */
  maxResultBytes?: number;
  /** The sandbox's memory cap: a call_tools batch's results together may use a share of it. */
  memoryLimitBytes?: number;
  /** Who runs the execution: failures are shown as this caller may see them (default: admin). */
  caller?: Caller;
  /** Dry run (the playground): calls pass every check and are answered by dryRunOutcome, never sent. */
  dryRun?: boolean;
  /** Tool-definition pins (ToolPins): a held tool is refused (TOOL_CHANGED) and never sent. */
  pins?: { refusalOf(server: string, tool: string): Refusal | undefined };
  /** tool_policy: `deny` refuses a call, `ask` holds it for a decision (absent: every call goes). */
  policy?: CallPolicy;
  /** Hears each console line as it is written (a run's waiters are told of it). */
  onLog?: (line: string) => void;
  /** The run's journal (code_execution_durable): calls and catalog reads go through it. */
  journal?: RunJournal;
  /** The run's span (traces on): each call sent is a CLIENT span under it. */
  span?: TraceSpan;
}

type Refusal = { code: string; message: string };

/** How a run whose request was cancelled ends: at its next call, nothing more sent. */
export const REQUEST_CANCELLED_MESSAGE =
  'the request was cancelled (MCP notifications/cancelled, or its connection closed): the run was stopped and nothing more was sent';

/** Refusals of tool_policy, recorded under their own codes in both dialects. */
const POLICY_CODES = new Set(['POLICY_DENIED', 'APPROVAL_DENIED', 'APPROVAL_TIMEOUT']);

export class CallGate implements JobBridge {
  private readonly trace: CallTrace;
  readonly logs: string[] = [];
  private readonly budget: CallBudget;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;
  private clock?: RunClock;
  private outOfPool = false;
  private readonly asyncSlots: ConcurrencyLimiter;
  /** Catalog operations and schema checks, one per event loop turn (fairness between executions). */
  private readonly hostWork = new HostWorkQueue();
  /** Each call's input requests, as lines for its history (by the program's request object). */
  private readonly notes = new WeakMap<CallRequest, string[]>();

  constructor(private readonly options: GateOptions) {
    this.trace = new CallTrace(options.config.activity.redactKeys);
    this.budget = new CallBudget(options.maxToolCalls);
    this.asyncSlots = new ConcurrencyLimiter(
      options.maxConcurrentToolCalls ?? options.config.codeExecution.maxParallel,
      Number.MAX_SAFE_INTEGER,
    );
  }

  /** The most one result may bring into the sandbox, in JSON bytes. */
  private get maxResultBytes(): number {
    return this.options.maxResultBytes ?? this.options.config.codeExecution.maxResultBytes;
  }

  /** A call_tools batch's results enter the guest as one JSON text: a share of its memory, at least one result. */
  private get maxBatchBytes(): number {
    const memory =
      this.options.memoryLimitBytes ?? this.options.config.codeExecution.memoryLimitMb * 1_048_576;
    return Math.max(this.maxResultBytes, Math.floor(memory / BATCH_RESULTS_MEMORY_DIVISOR));
  }

  /** A call's outcome with its result bounded by maxResultBytes. */
  private async dispatchBounded(
    request: CallRequest,
    at?: number,
  ): Promise<{ outcome: CallOutcome; bytes: number; json?: string }> {
    const journal = this.options.journal;
    const outcome =
      journal && at !== undefined
        ? await journaledCall(journal, at, request, () => this.dispatch(request))
        : await this.dispatch(request);
    return boundedOutcome(outcome, this.maxResultBytes, `${request.server}.${request.tool}`);
  }

  /** The run's end when its request was cancelled; undefined while it may go on. */
  private cancelled(): BridgeReply | undefined {
    if (!this.options.policy?.requestCancelled) return undefined;
    return { fatal: { code: 'EXECUTION_FAILED', message: REQUEST_CANCELLED_MESSAGE } };
  }

  /** allowed_servers, then quarantine; undefined when the call may go out. */
  private policy(server: string): Refusal | undefined {
    return serverRefusal(this.options.registry, this.options.allowedServers, server);
  }

  /**
   * Each call gets its own AbortController, aborted by close(): the SDK adds a listener per
   * call, and one shared signal would collect thousands of them.
   */
  private async dispatch(request: CallRequest): Promise<CallOutcome> {
    if (this.options.dryRun) return dryRunOutcome(this.options.registry, request);
    const controller = new AbortController();
    if (this.closed) controller.abort();
    this.inFlight.add(controller);
    const askInput = this.options.policy?.inputFor(request, (line) => {
      const lines = this.notes.get(request) ?? [];
      lines.push(line);
      this.notes.set(request, lines);
    });
    try {
      const outcome = await this.options.registry.call(request.server, request.tool, request.args, {
        signal: controller.signal,
        ...(askInput ? { askInput } : {}),
        // Time spent waiting for decisions does not count against the execution.
        timeoutMs: Math.max(
          1,
          this.options.deadlineMs + (this.options.policy?.pausedMs ?? 0) - Date.now(),
        ),
        span: this.options.span,
      });
      return outcome.ok
        ? outcome
        : { ...outcome, message: messageFor(outcome.message, this.options.caller ?? ADMIN) };
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** `facts` with the input requests the call's server made, if any. */
  private withNotes(request: CallRequest, facts: CallFacts | undefined): CallFacts | undefined {
    const notes = this.notes.get(request);
    return notes ? { ...facts, notes } : facts;
  }

  /** Budget, then policy, for one call before dispatch: 'fatal', a refusal, or undefined to go. */
  private judge(
    request: CallRequest,
  ): 'fatal' | { refusal: Refusal; overBudget: boolean } | undefined {
    const budget = this.budget.take();
    if (budget === 'fatal') return 'fatal';
    if (budget === 'refused') return { refusal: this.budget.refusal(), overBudget: true };
    const refusal =
      this.policy(request.server) ?? this.options.pins?.refusalOf(request.server, request.tool);
    return refusal ? { refusal, overBudget: false } : undefined;
  }

  /** catalog.*: only what this execution may call is counted, listed, searched or described. */
  private catalogCall(
    requestJson: string,
    at: number | undefined,
  ): BridgeReply | Promise<BridgeReply> {
    const { op, params } = JSON.parse(requestJson) as { op: string; params: unknown };
    const live = () => this.options.catalog.run(op, params, (ns) => this.policy(ns) === undefined);
    const journal = this.options.journal;
    if (!journal || at === undefined) return { envelope: live() };
    return journaledCatalog(journal, at, op, params, live).then((envelope) => ({ envelope }));
  }

  async call(requestJson: string, dialect: CallDialect): Promise<BridgeReply> {
    // Each interaction has its number in the order the program asks (a resume asks the same).
    const at = this.options.journal?.next();
    try {
      if (dialect === 'catalog')
        return await this.hostWork.run(() => this.catalogCall(requestJson, at));
      return await this.callTool(requestJson, dialect, at);
    } catch (error) {
      return this.journalEnd(error);
    }
  }

  /** How the run ends when its journal says so: a divergence, or a journal that cannot be written. */
  private journalEnd(error: unknown): BridgeReply {
    if (error instanceof ReplayDiverged)
      return { fatal: { code: 'REPLAY_DIVERGED', message: error.message } };
    const failure = this.options.journal?.failure;
    if (failure) return { fatal: { code: 'EXECUTION_FAILED', message: failure } };
    throw error;
  }

  private async callTool(
    requestJson: string,
    dialect: CallDialect,
    at: number | undefined,
  ): Promise<BridgeReply> {
    const shape = callShape(requestJson, dialect === 'sync' ? 'call_tool' : 'tools');
    if (!shape.ok) {
      return {
        envelope:
          dialect === 'sync'
            ? syncFailure('INVALID_ARGS', shape.message)
            : {
                ok: false,
                error: { code: 'invalid_input', message: shape.message, retryable: false },
              },
      };
    }
    const request = shape.value;
    const ended = this.cancelled();
    if (ended) return ended;
    const started = performance.now();
    const verdict = this.judge(request);
    if (verdict === 'fatal') return this.budget.fatal();
    if (verdict?.overBudget) this.budget.markRefused();
    const finish = this.trace.reserve(request);
    let step = verdict?.refusal ? undefined : this.options.policy?.judge(request);
    if (step instanceof Promise) step = await step;
    // Then the arguments against the tool's input schema: call_tool's at once (its guest
    // waits on this call alone), tools.* one check per turn (a guest may fire thousands).
    const refusal =
      verdict?.refusal ??
      (step && 'refusal' in step ? step.refusal : undefined) ??
      (dialect === 'sync'
        ? argsRefusal(this.options.registry, request)
        : await this.hostWork.run(() => argsRefusal(this.options.registry, request)));
    if (refusal) return this.refuse(dialect, refusal, started, finish);
    let facts: CallFacts | undefined;
    if (step && 'ask' in step) {
      const held = await this.options.policy!.hold(request, step.ask, at);
      // Cancelled while held: the run ends here, the held call is never sent.
      const cancelled = this.cancelled();
      if (cancelled) {
        if ('refusal' in held) this.refuse(dialect, held.refusal, started, finish);
        return cancelled;
      }
      if ('refusal' in held) return this.refuse(dialect, held.refusal, started, finish);
      facts = { approvalId: held.approvalId };
    }
    if (dialect === 'sync') {
      // The result is encoded once: its size bound, the reply and the history's cut share it.
      const bounded = await this.dispatchBounded(request, at);
      const envelope = syncEnvelope(bounded.outcome);
      const envelopeJson = syncEnvelopeJson(envelope, bounded.json);
      finish(started, envelope, undefined, envelopeJson, this.withNotes(request, facts));
      return { envelope, envelopeJson };
    }
    const release = await this.asyncSlots.acquire();
    try {
      const { outcome } = await this.dispatchBounded(request, at);
      const envelope = asyncEnvelope(
        outcome,
        this.maxResultBytes,
        `${request.server}.${request.tool}`,
      );
      finish(started, envelope, undefined, undefined, this.withNotes(request, facts));
      return { envelope };
    } finally {
      release?.();
    }
  }

  /**
   * A refusal before dispatch, in the call's dialect. A tool_policy refusal keeps the contract's
   * code in the trace and the history (access_denied or upstream_timeout would not say why).
   */
  private refuse(dialect: CallDialect, refusal: Refusal, started: number, finish: Finish) {
    const envelope =
      dialect === 'sync'
        ? syncFailure(refusal.code, refusal.message)
        : asyncFailure(refusal.code, refusal.message);
    const facts = POLICY_CODES.has(refusal.code) ? { code: refusal.code } : undefined;
    finish(started, envelope, undefined, undefined, facts);
    return { envelope };
  }

  async batch(batchJson: string): Promise<BridgeReply> {
    try {
      return await this.callBatch(batchJson);
    } catch (error) {
      return this.journalEnd(error);
    }
  }

  private async callBatch(batchJson: string): Promise<BridgeReply> {
    // The limits hold on what was sent, whatever the guest's check saw.
    const shape = batchShape(batchJson);
    if (!shape.ok) return { envelope: syncFailure('INVALID_ARGS', shape.message) };
    const ended = this.cancelled();
    if (ended) return ended;
    const batch = shape.value;
    const started = performance.now();
    // Each element is an interaction of its own, numbered in input order.
    const steps = batch.requests.map(() => this.options.journal?.next());
    const slots: unknown[] = new Array(batch.requests.length);
    const toSend: Array<{ i: number; finish: Finish; ask?: PolicyVerdict }> = [];
    let overBudget = false;
    // Every element is judged in input order before anything is dispatched.
    for (let i = 0; i < batch.requests.length; i++) {
      const request = batch.requests[i]!;
      const verdict = this.judge(request);
      if (verdict === 'fatal') return this.budget.fatal();
      const finish = this.trace.reserve(request);
      overBudget ||= verdict?.overBudget ?? false;
      let step = verdict?.refusal ? undefined : this.options.policy?.judge(request);
      if (step instanceof Promise) step = await step;
      // The arguments are checked here too: the batch's guest waits on it alone.
      const refusal =
        verdict?.refusal ??
        (step && 'refusal' in step ? step.refusal : undefined) ??
        argsRefusal(this.options.registry, request);
      if (refusal) {
        slots[i] = this.refuse('sync', refusal, started, finish).envelope;
      } else {
        toSend.push({ i, finish, ...(step && 'ask' in step ? { ask: step.ask } : {}) });
      }
    }
    // The whole over-budget batch counts as one refused attempt.
    if (overBudget) this.budget.markRefused();
    const parallel = batch.max_parallel ?? this.options.config.codeExecution.maxParallel;
    type Done = {
      outcome: CallOutcome;
      bytes: number;
      started: number;
      ended: number;
      facts?: CallFacts;
    };
    const outcomes = new Map<number, Done>();
    let next = 0;
    const lane = async () => {
      while (next < toSend.length) {
        const { i, ask } = toSend[next++]!;
        const callStarted = performance.now();
        const request = batch.requests[i]!;
        // An `ask` element waits for its decision in its lane; the others go on meanwhile.
        const held = ask ? await this.options.policy!.hold(request, ask, steps[i]) : undefined;
        // Cancelled meanwhile: nothing more of the batch is sent (the run ends below).
        if (this.options.policy?.requestCancelled) continue;
        if (held && 'refusal' in held) {
          const { code, message } = held.refusal;
          const outcome = { ok: false, code, message } as CallOutcome;
          outcomes.set(i, { outcome, bytes: 0, started: callStarted, ended: performance.now() });
          continue;
        }
        const bounded = await this.dispatchBounded(request, steps[i]);
        outcomes.set(i, {
          ...bounded,
          started: callStarted,
          ended: performance.now(),
          ...(held ? { facts: { approvalId: held.approvalId } } : {}),
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, toSend.length) }, lane));
    const cancelled = this.cancelled();
    if (cancelled) return cancelled;
    // The batch as a whole is bounded too; results past the bound fail, in input order.
    const maxTotal = this.maxBatchBytes;
    let total = 0;
    for (const { i, finish } of toSend) {
      const request = batch.requests[i]!;
      const done = outcomes.get(i);
      // The execution ended before this call could run (close() already closed its entry).
      if (!done) continue;
      let outcome = done.outcome;
      total += done.bytes;
      if (total > maxTotal) {
        total -= done.bytes;
        outcome = {
          ok: false,
          code: 'RESULT_TOO_LARGE',
          message: `${request.server}.${request.tool}: result too large (the batch's results together exceed ${maxTotal} bytes; call it on its own, or raise code_execution_memory_limit_mb)`,
        };
      }
      const envelope = syncEnvelope(outcome);
      slots[i] = envelope;
      finish(done.started, envelope, done.ended, undefined, this.withNotes(request, done.facts));
    }
    return { envelope: slots };
  }

  bindClock(clock: RunClock): void {
    this.clock = clock;
    this.options.policy?.bindClock(clock);
    if (this.outOfPool) clock.leavePool();
  }

  /** The run yielded: its worker no longer counts toward the pool (now, or once it has one). */
  leavePool(): void {
    this.outOfPool = true;
    this.clock?.leavePool();
  }

  /**
   * The program's live clock readings before its next call, log line or outcome: journaled
   * (in order, before what follows them), so a resumed run reads the same times again.
   */
  readings(clock: number[]): void {
    void this.options.journal?.readings(clock).catch(() => {});
  }

  log(level: LogLevel, line: string): void {
    this.logs.push(line);
    this.options.onLog?.(line);
    this.options.logger.debug({ console: level }, `guest console: ${line}`);
  }

  /**
   * Cancels every call still in flight (MCP notifications/cancelled); their trace entries
   * are closed as CANCELLED, so the trace no longer changes. Idempotent.
   */
  close(): void {
    this.closed = true;
    this.options.policy?.close();
    this.trace.close();
    this.hostWork.close();
    for (const controller of this.inFlight) controller.abort();
    this.inFlight.clear();
    this.asyncSlots.drain();
  }

  /** The trace entries, in the order the program made its calls. */
  get toolCalls(): ToolCallRecord[] {
    return this.trace.toolCalls;
  }

  /** The same calls in the same order, with arguments and answers (for the activity history). */
  get calls(): readonly CallDetail[] {
    return this.trace.calls;
  }

  get callCount(): number {
    return this.trace.toolCalls.length;
  }
}
