/**
 * @module The host side of one execution's tool calls: budget (with the runaway rule),
 * allowed servers and quarantine, checked in input order before dispatch; parallel
 * batches; cancellation of everything in flight when the execution ends.
 */
import type { Catalog } from '../catalog/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type {
  BatchRequest,
  BridgeReply,
  CallDialect,
  CallRequest,
  JobBridge,
  LogLevel,
} from '../sandbox/index.ts';
import { type CallOutcome, ConcurrencyLimiter, type UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { asyncEnvelope, asyncFailure, syncEnvelope, syncFailure } from './envelopes.ts';
import { inputProblem } from './input-validator.ts';
import type { ToolCallRecord } from './types.ts';

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
  /** Largest single tools.* result (default: code_execution_max_output_bytes). */
  maxOutputBytes?: number;
}

type Refusal = { code: string; message: string };

export class CallGate implements JobBridge {
  readonly toolCalls: ToolCallRecord[] = [];
  readonly logs: string[] = [];
  private used = 0;
  private refusedOnce = false;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;
  private readonly asyncSlots: ConcurrencyLimiter;

  constructor(private readonly options: GateOptions) {
    this.asyncSlots = new ConcurrencyLimiter(
      options.maxConcurrentToolCalls ?? options.config.codeExecution.maxParallel,
      Number.MAX_SAFE_INTEGER,
    );
  }

  private get budgetMessage(): string {
    return `Exceeded maximum tool calls limit (${this.options.maxToolCalls})`;
  }

  /** One unit of budget: 'ok', a first refusal, or 'fatal' for an attempt after a refusal. */
  private take(): 'ok' | 'refused' | 'fatal' {
    const max = this.options.maxToolCalls;
    if (max === 0 || this.used < max) {
      this.used++;
      return 'ok';
    }
    return this.refusedOnce ? 'fatal' : 'refused';
  }

  private fatal(): BridgeReply {
    return { fatal: { code: 'MAX_TOOL_CALLS_EXCEEDED', message: this.budgetMessage } };
  }

  /** allowed_servers, then quarantine; undefined when the call may go out. */
  private policy(server: string): Refusal | undefined {
    const allowed = this.options.allowedServers;
    if (allowed && !allowed.has(server)) {
      return {
        code: 'SERVER_NOT_ALLOWED',
        message: `Server '${server}' is not in the allowed servers list`,
      };
    }
    if (this.options.registry.server(server)?.quarantined) {
      return {
        code: 'ACCESS_DENIED',
        message: `Server '${server}' is quarantined for review; an administrator must set "quarantined": false in the config before its tools can be called`,
      };
    }
    return undefined;
  }

  private record(request: CallRequest, started: number, code?: string): void {
    this.toolCalls.push({
      server: request.server,
      tool: request.tool,
      ok: code === undefined,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...(code ? { code } : {}),
    });
  }

  /**
   * Each call gets its own AbortController, aborted by close(): the SDK adds a listener per
   * call, and one shared signal would collect thousands of them.
   */
  private async dispatch(request: CallRequest): Promise<CallOutcome> {
    const controller = new AbortController();
    if (this.closed) controller.abort();
    this.inFlight.add(controller);
    try {
      return await this.options.registry.call(request.server, request.tool, request.args, {
        signal: controller.signal,
        timeoutMs: Math.max(1, this.options.deadlineMs - Date.now()),
      });
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** Budget, then policy, for one call before dispatch: 'fatal', a refusal, or undefined to go. */
  private judge(
    request: CallRequest,
  ): 'fatal' | { refusal: Refusal; overBudget: boolean } | undefined {
    const budget = this.take();
    if (budget === 'fatal') return 'fatal';
    if (budget === 'refused') {
      return {
        refusal: { code: 'MAX_TOOL_CALLS_EXCEEDED', message: this.budgetMessage },
        overBudget: true,
      };
    }
    const refusal = this.policy(request.server);
    return refusal ? { refusal, overBudget: false } : undefined;
  }

  /** catalog.*: only what this execution may call is counted, listed, searched or described. */
  private catalogCall(requestJson: string): BridgeReply {
    const { op, params } = JSON.parse(requestJson) as { op: string; params: unknown };
    return {
      envelope: this.options.catalog.run(op, params, (ns) => this.policy(ns) === undefined),
    };
  }

  /** The async dialect checks arguments against the tool's input schema before dispatch. */
  private schemaProblem(request: CallRequest): string | undefined {
    const tool = this.options.registry.tools(request.server).find((t) => t.name === request.tool);
    return tool ? inputProblem(tool.inputSchema, request.args) : undefined;
  }

  async call(requestJson: string, dialect: CallDialect): Promise<BridgeReply> {
    if (dialect === 'catalog') return this.catalogCall(requestJson);
    const request = JSON.parse(requestJson) as CallRequest;
    const started = performance.now();
    const verdict = this.judge(request);
    if (verdict === 'fatal') return this.fatal();
    if (verdict?.overBudget) this.refusedOnce = true;
    const refusal = verdict?.refusal;
    if (refusal) {
      this.record(request, started, refusal.code);
      return {
        envelope:
          dialect === 'sync'
            ? syncFailure(refusal.code, refusal.message)
            : asyncFailure(refusal.code, refusal.message),
      };
    }
    if (dialect === 'sync') {
      const envelope = syncEnvelope(await this.dispatch(request));
      this.record(request, started, envelope.ok ? undefined : envelope.error.code);
      return { envelope };
    }
    const problem = this.schemaProblem(request);
    if (problem) {
      this.record(request, started, 'invalid_input');
      return {
        envelope: {
          ok: false,
          error: {
            code: 'invalid_input',
            message: `${request.server}.${request.tool}: ${problem}`,
            retryable: false,
          },
        },
      };
    }
    const release = await this.asyncSlots.acquire();
    try {
      const outcome = await this.dispatch(request);
      const envelope = asyncEnvelope(
        outcome,
        this.options.maxOutputBytes ?? this.options.config.codeExecution.maxOutputBytes,
      );
      this.record(request, started, envelope.ok ? undefined : envelope.error.code);
      return { envelope };
    } finally {
      release?.();
    }
  }

  async batch(batchJson: string): Promise<BridgeReply> {
    const batch = JSON.parse(batchJson) as BatchRequest;
    const started = performance.now();
    const slots: unknown[] = new Array(batch.requests.length);
    const toSend: number[] = [];
    let overBudget = false;
    // Every element is judged in input order before anything is dispatched.
    for (let i = 0; i < batch.requests.length; i++) {
      const request = batch.requests[i]!;
      const verdict = this.judge(request);
      if (verdict === 'fatal') return this.fatal();
      if (verdict) {
        overBudget ||= verdict.overBudget;
        slots[i] = syncFailure(verdict.refusal.code, verdict.refusal.message);
        this.record(request, started, verdict.refusal.code);
      } else {
        toSend.push(i);
      }
    }
    // The whole over-budget batch counts as one refused attempt.
    if (overBudget) this.refusedOnce = true;
    const parallel = batch.max_parallel ?? this.options.config.codeExecution.maxParallel;
    let next = 0;
    const lane = async () => {
      while (next < toSend.length) {
        const i = toSend[next++]!;
        const request = batch.requests[i]!;
        const callStarted = performance.now();
        const envelope = syncEnvelope(await this.dispatch(request));
        slots[i] = envelope;
        this.record(request, callStarted, envelope.ok ? undefined : envelope.error.code);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, toSend.length) }, lane));
    return { envelope: slots };
  }

  log(level: LogLevel, line: string): void {
    this.logs.push(line);
    this.options.logger.debug({ console: level }, `guest console: ${line}`);
  }

  /** Cancels every call still in flight (MCP notifications/cancelled); idempotent. */
  close(): void {
    this.closed = true;
    for (const controller of this.inFlight) controller.abort();
    this.inFlight.clear();
    this.asyncSlots.drain();
  }

  get callCount(): number {
    return this.toolCalls.length;
  }
}
