/**
 * @module One execution's tool policy: judges each call (`deny` refuses it, `ask` holds it for
 * a decision), and keeps the run's wall clock stopped while any call waits for a person.
 */
import type { ResolvedConfig } from '../../config/index.ts';
import type { CallRequest, RunClock } from '../../sandbox/index.ts';
import { APPROVAL_SPAN, ATTR, type TraceSpan, tracing } from '../../telemetry/index.ts';
import type { AskInput, ToolInfo, UpstreamRegistry } from '../../upstream/index.ts';
import { callerLabel, type RunFacts } from '../activity/entry.ts';
import type { RunJournal } from '../runs/run-journal.ts';
import { type Approvals, argsDigest } from './approvals.ts';
import { type InputRequests, inputNote } from './input-requests.ts';
import { allowsEverything, deniedMessage, judgeCall, type PolicyVerdict } from './tool-policy.ts';
import type { CallerChannel } from './types.ts';

type Refusal = { code: string; message: string };

/** `channel` that first journals the approval a call waits on (a resume waits on it again). */
function journalingChannel(
  channel: CallerChannel | undefined,
  journal: (approvalId: string) => Promise<void>,
): CallerChannel {
  return {
    ...channel,
    ask: (approval, signal) => {
      void journal(approval.id).catch(() => {});
      return channel?.ask ? channel.ask(approval, signal) : Promise.resolve(undefined);
    },
  };
}

export interface CallPolicyOptions {
  registry: UpstreamRegistry;
  config: ResolvedConfig;
  /** Where `ask` calls wait; without it an `ask` call is refused (nobody could decide). */
  approvals?: Approvals;
  /** Where an upstream's requests for input wait; without it they are declined. */
  inputs?: InputRequests;
  /** The execution: who runs it and the program (as an approval shows them). */
  facts: RunFacts;
  /** The execution's activity record, when the history is on. */
  activityId: string | undefined;
  /** The run's journal (code_execution_durable), when it has one. */
  journal?: RunJournal;
  /** True once the run was left to a restart: its approvals stay pending for the resumed run. */
  abandoned?: () => boolean;
  run: {
    /** The caller's own client or terminal, asked first. */
    channel?: CallerChannel;
    /** Aborts when the request was cancelled: its pending approvals expire. */
    signal?: AbortSignal;
    /** A dry run never asks: an `ask` call goes on to the dry run's stub. */
    dryRun?: boolean;
    /** The run: each approval wait is a span under its span (traces on). */
    run?: { readonly span?: TraceSpan };
  };
}

/** How a held call ends: the approval to send it under, or a refusal (of an approval, when one was made). */
export type HoldResult = { approvalId: string } | { refusal: Refusal; approvalId?: string };

/** What the policy says before dispatch: refuse, hold for a decision, or nothing (send it). */
export type PolicyStep = { refusal: Refusal } | { ask: PolicyVerdict } | undefined;

export class CallPolicy {
  private clock?: RunClock;
  /**
   * Aborted when the execution ends or the request is cancelled: every hold expires. Made at
   * the first hold: an abort builds an exception with a stack (about 0.1 ms), too dear for the
   * executions that hold nothing.
   */
  private ended?: AbortController;
  private over = false;
  private openHolds = 0;
  private heldSince = 0;
  private heldTotalMs = 0;
  private readonly onRequestAbort = () => this.end();

  constructor(private readonly options: CallPolicyOptions) {}

  /** The signal that ends every hold of this execution (and of its request). */
  private endedSignal(): AbortSignal {
    if (!this.ended) {
      this.ended = new AbortController();
      const request = this.options.run.signal;
      if (this.over || request?.aborted) this.ended.abort();
      else request?.addEventListener('abort', this.onRequestAbort, { once: true });
    }
    return this.ended.signal;
  }

  private end(): void {
    this.over = true;
    this.ended?.abort();
  }

  bindClock(clock: RunClock): void {
    this.clock = clock;
  }

  /**
   * The request was cancelled (MCP `notifications/cancelled`, the SDK client's own timeout, a
   * closed connection): the run must send nothing more, whatever it was told since.
   */
  get requestCancelled(): boolean {
    return this.options.run.signal?.aborted === true;
  }

  /** Wall time during which at least one call waited for a decision (the deadline moves by it). */
  get pausedMs(): number {
    return this.heldTotalMs + (this.openHolds > 0 ? Date.now() - this.heldSince : 0);
  }

  /**
   * The verdict on one call; a listed tool's annotations count (an unknown tool fails at
   * dispatch). Synchronous when the server's tools are known (every call on a running
   * gateway): the sync dialect's guest waits on this.
   */
  judge(request: CallRequest): PolicyStep | Promise<PolicyStep> {
    const policy = this.options.config.toolPolicy;
    if (allowsEverything(policy)) return undefined;
    const { registry } = this.options;
    const tool = registry.tools(request.server).find((t) => t.name === request.tool);
    if (tool || !registry.server(request.server)) return this.verdictOn(request, tool);
    // Standalone, a server starts on its first call: its annotations are read first.
    return registry.ensureStarted(request.server).then(() =>
      this.verdictOn(
        request,
        registry.tools(request.server).find((t) => t.name === request.tool),
      ),
    );
  }

  private verdictOn(request: CallRequest, tool: ToolInfo | undefined): PolicyStep {
    if (!tool) return undefined;
    const policy = this.options.config.toolPolicy;
    const verdict = judgeCall(policy, request.server, request.tool, tool.annotations);
    if (verdict.action === 'deny') {
      return {
        refusal: {
          code: 'POLICY_DENIED',
          message: deniedMessage(request.server, request.tool, verdict.reason),
        },
      };
    }
    if (verdict.action === 'ask' && !this.options.run.dryRun) return { ask: verdict };
    return undefined;
  }

  /**
   * Holds an `ask` call until it is decided: the approval's id to send it, or a refusal. A
   * journaled run (interaction `at`) journals the approval it waits on, and a resumed one waits
   * again on the approval its earlier life was waiting on. Traced, the wait is a span of the run.
   */
  async hold(request: CallRequest, verdict: PolicyVerdict, at?: number): Promise<HoldResult> {
    const span = tracing().child(this.options.run.run?.span, APPROVAL_SPAN);
    if (!span.recording) return this.holdUntraced(request, verdict, at);
    span.set(ATTR.server, request.server);
    span.set(ATTR.tool, request.tool);
    const held = await tracing().within(span, () => this.holdUntraced(request, verdict, at));
    if (held.approvalId) span.set(ATTR.approvalId, held.approvalId);
    span.end('refusal' in held ? held.refusal.code : undefined);
    return held;
  }

  private async holdUntraced(
    request: CallRequest,
    verdict: PolicyVerdict,
    at?: number,
  ): Promise<HoldResult> {
    const { approvals, config, facts } = this.options;
    const name = `${request.server}.${request.tool}`;
    if (!approvals) {
      return {
        refusal: {
          code: 'APPROVAL_DENIED',
          message: `${name} needs approval (tool_policy ${verdict.reason}) and nobody can decide here; it was not sent`,
        },
      };
    }
    const resume = this.pause();
    const journal = at === undefined ? undefined : this.options.journal;
    const waitedOn = journal?.replayed(
      at!,
      `${request.server}.${request.tool}`,
      argsDigest(request.args),
    );
    try {
      const outcome =
        waitedOn && 'held' in waitedOn
          ? await approvals.rejoin(
              waitedOn.held,
              this.endedSignal(),
              this.options.run.channel,
              this.options.abandoned,
            )
          : await approvals.hold(
              {
                server: request.server,
                tool: request.tool,
                args: request.args,
                reason: verdict.reason,
                caller: callerLabel(facts.caller),
                activityId: this.options.activityId ?? null,
                code: facts.code ?? null,
                redactKeys: config.activity.redactKeys,
                timeoutMs: config.toolPolicy.approvalTimeoutMs,
                maxPendingPerCaller: config.toolPolicy.maxPendingPerCaller,
                ...(this.options.abandoned ? { keepOnAbort: this.options.abandoned } : {}),
              },
              this.endedSignal(),
              journal
                ? journalingChannel(this.options.run.channel, (id) => journal.held(at!, id))
                : this.options.run.channel,
            );
      if (!outcome.ok) {
        return {
          refusal: { code: outcome.code, message: outcome.message },
          approvalId: outcome.approval?.id,
        };
      }
      // A decision is bound to the arguments it was shown: these, byte for byte in canonical form.
      if (argsDigest(request.args) !== outcome.approval.args_sha256) {
        return {
          refusal: {
            code: 'APPROVAL_DENIED',
            message: `${name}: approval ${outcome.approval.id} was given for other arguments; it was not sent`,
          },
        };
      }
      return { approvalId: outcome.approval.id };
    } finally {
      resume();
    }
  }

  /** Stops the run's wall clock while a person is waited on; the returned function starts it again. */
  private pause(): () => void {
    const release = this.clock?.hold();
    if (this.openHolds++ === 0) this.heldSince = Date.now();
    return () => {
      if (--this.openHolds === 0) this.heldTotalMs += Date.now() - this.heldSince;
      release?.();
    };
  }

  /**
   * How `request`'s server is answered when it asks for input during the call: put to a person
   * (the caller's client first) while the run's clock stops; `note` hears a line for the
   * call's history. Declined when nobody could answer here.
   */
  inputFor(request: CallRequest, note: (line: string) => void): AskInput | undefined {
    const { inputs, config, facts } = this.options;
    if (!inputs) return undefined;
    return async (ask, signal) => {
      const resume = this.pause();
      const ended = AbortSignal.any([signal, this.endedSignal()]);
      try {
        const timeoutMs = config.toolPolicy.approvalTimeoutMs;
        const { reply, record } = await inputs.ask(
          {
            server: request.server,
            tool: request.tool,
            ask,
            caller: callerLabel(facts.caller),
            activityId: this.options.activityId ?? null,
            timeoutMs,
          },
          ended,
          this.options.run.channel?.askInput,
        );
        note(inputNote(record, timeoutMs));
        return reply;
      } finally {
        resume();
      }
    };
  }

  /** The execution ended: calls still waiting expire. Idempotent. */
  close(): void {
    if (this.ended) this.options.run.signal?.removeEventListener('abort', this.onRequestAbort);
    this.end();
  }
}
