/**
 * @module One run as a thing with its own life (DESIGN "Runs that outlive their request"): its
 * own abort signal, tied to the request that started it only until it yields; what it shows
 * while it goes on (the approvals it waits for, its console lines, its calls so far); and how
 * it ended, kept for whoever waits on it.
 */
import type { TraceSpan } from '../../telemetry/index.ts';
import { abortReason } from '../../util/abort-reason.ts';
import type { CallerChannel } from '../policy/types.ts';
import type { ErrorBody, ToolCallRecord } from '../types.ts';
import type { RunJournal } from './run-journal.ts';

/** Which tool started the run: its answers are that dialect's. */
export type RunKind = 'code_execution' | 'execute' | 'code_tool';

/** One approval a run waits for. */
export interface AwaitedApproval {
  approval_id: string;
  server: string;
  tool: string;
}

/** An upstream's request for input a run's call waits on (docs/input.md). */
export interface AwaitedInput {
  input_id: string;
  server: string;
  /** Null when the server asked while several of its calls were in flight. */
  tool: string | null;
}

/** How a run ended: the service's own answer, or what it threw (code mode's JSON-RPC refusals). */
export type RunEnd<T> = { result: T } | { thrown: unknown };

/** What a run shows while it goes on: the running answer, a list row, a progress line. */
export interface RunSnapshot {
  execution_id: string;
  kind: RunKind;
  /** The code tool's name, for `code_tool` runs. */
  tool?: string;
  status: 'running' | 'done';
  caller: string;
  started_at: string;
  elapsed_ms: number;
  waiting_for: AwaitedApproval[];
  /** The upstreams' requests for input its calls wait on; present only while there are some. */
  waiting_for_input?: AwaitedInput[];
  logs: string[];
  tool_calls: ToolCallRecord[];
  /** The instance the run lives on. */
  instance_id: string;
}

/** The gate's live view of a run: its console lines and its calls so far. */
export interface RunView {
  readonly logs: readonly string[];
  readonly toolCalls: ToolCallRecord[];
  /** The run yielded: its worker no longer counts toward the pool's size. */
  leavePool(): void;
}

/** What the execution services use of a run (RunOptions.run). */
export interface RunControl {
  /** The execution's id: its activity record's id, and the `execution_id` a caller continues with. */
  readonly id: string;
  /** Set when the run may not start (code_execution_max_running): the service refuses with it. */
  readonly refusal?: ErrorBody;
  /** The gate shows its console lines and calls through this while the run goes on. */
  attach(view: RunView): void;
  /** A console line was written (progress notifications name the last one). */
  logged(line: string): void;
  /** The run's journal (code_execution_durable), when it is journaled. */
  readonly journal?: RunJournal;
  /** True once the run was left to a restart (its instance stopped): it is not recorded here. */
  readonly abandoned?: boolean;
  /**
   * The span of the tools/call that started it (traces on): its upstream calls, type check and
   * approval waits are its children, carried explicitly (worker messages lose async context).
   */
  readonly span?: TraceSpan;
}

/** Something a waiter hears: a new console line, an approval awaited or no longer, or the end. */
export type RunEvent = 'log' | 'waiting' | 'end';

export class LiveRun<T = unknown> implements RunControl {
  readonly controller = new AbortController();
  readonly startedAt = Date.now();
  readonly waitingFor = new Map<string, AwaitedApproval>();
  readonly waitingForInput = new Map<string, AwaitedInput>();
  /** True once the run answered `running`: its request no longer owns it. */
  yielded = false;
  refusal?: ErrorBody;
  journal?: RunJournal;
  /** Left to a restart (the instance stops): its end is neither kept nor recorded here. */
  abandoned = false;
  span?: TraceSpan;
  end?: RunEnd<T>;
  endedAt?: number;
  private view?: RunView;
  private lastLine?: string;
  private readonly listeners = new Set<(event: RunEvent) => void>();
  private readonly unlinkRequest: () => void;
  readonly ended: Promise<RunEnd<T>>;
  private settle!: (end: RunEnd<T>) => void;

  constructor(
    readonly id: string,
    readonly kind: RunKind,
    /** The caller's key (callerLabel): only it or the admin may continue the run. */
    readonly owner: string,
    readonly instanceId: string,
    /** The request that started it: its cancellation cancels the run until the run yields. */
    requestSignal: AbortSignal | undefined,
    readonly tool?: string,
  ) {
    this.ended = new Promise((resolve) => {
      this.settle = resolve;
    });
    const onRequestAbort = () => {
      if (!this.yielded) this.cancel(requestReason(requestSignal!));
    };
    if (requestSignal?.aborted) onRequestAbort();
    else requestSignal?.addEventListener('abort', onRequestAbort, { once: true });
    this.unlinkRequest = () => requestSignal?.removeEventListener('abort', onRequestAbort);
  }

  /** Aborts when the run is cancelled (by `cancel`, or by its request before it yielded). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get done(): boolean {
    return this.end !== undefined;
  }

  attach(view: RunView): void {
    this.view = view;
    if (this.yielded) view.leavePool();
  }

  logged(line: string): void {
    this.lastLine = line;
    this.emit('log');
  }

  /** The last console line, or undefined before the first. */
  get lastLog(): string | undefined {
    return this.lastLine;
  }

  /** The request was answered `running`: from now on its end changes nothing. */
  markYielded(): void {
    this.yielded = true;
    this.unlinkRequest();
    this.view?.leavePool();
  }

  /** Stops the run with CANCELLED and `reason` as its message; nothing once it ended. */
  cancel(reason: string): void {
    if (this.done || this.controller.signal.aborted) return;
    this.controller.abort(reason);
  }

  /** Records how the run ended and wakes every waiter. */
  finish(end: RunEnd<T>): void {
    if (this.end) return;
    this.end = end;
    this.endedAt = Date.now();
    this.unlinkRequest();
    this.settle(end);
    this.emit('end');
  }

  /** Listens to the run's events; returns the way to stop listening. */
  on(listener: (event: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: RunEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /**
   * The caller's channel as this run sees it: each approval it waits for is listed in
   * `waiting_for` while it waits; progress lines are the waiters' (runs.ts), not the request's.
   */
  channel(inner: CallerChannel = {}): CallerChannel {
    return {
      // An upstream's question goes to the caller's client as it is; waiting_for_input lists it.
      askInput: (input, signal) => {
        this.waitingForInput.set(input.id, {
          input_id: input.id,
          server: input.server,
          tool: input.tool,
        });
        this.emit('waiting');
        signal.addEventListener(
          'abort',
          () => {
            this.waitingForInput.delete(input.id);
            this.emit('waiting');
          },
          { once: true },
        );
        if (inner.askInput) return inner.askInput(input, signal);
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve(undefined), { once: true }),
        );
      },
      ask: (approval, signal) => {
        const awaited = {
          approval_id: approval.id,
          server: approval.server,
          tool: approval.tool,
        };
        this.waitingFor.set(approval.id, awaited);
        this.emit('waiting');
        signal.addEventListener(
          'abort',
          () => {
            this.waitingFor.delete(approval.id);
            this.emit('waiting');
          },
          { once: true },
        );
        if (inner.ask) return inner.ask(approval, signal);
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve(undefined), { once: true }),
        );
      },
    };
  }

  /** Where the run stands now. */
  snapshot(): RunSnapshot {
    return {
      execution_id: this.id,
      kind: this.kind,
      ...(this.tool ? { tool: this.tool } : {}),
      status: this.done ? 'done' : 'running',
      caller: this.owner,
      started_at: new Date(this.startedAt).toISOString(),
      elapsed_ms: (this.endedAt ?? Date.now()) - this.startedAt,
      waiting_for: [...this.waitingFor.values()],
      ...(this.waitingForInput.size > 0
        ? { waiting_for_input: [...this.waitingForInput.values()] }
        : {}),
      logs: [...(this.view?.logs ?? [])],
      tool_calls: [...(this.view?.toolCalls ?? [])],
      instance_id: this.instanceId,
    };
  }
}

/** What a cancelled request says as the run's CANCELLED message. */
function requestReason(signal: AbortSignal): string {
  const detail = abortReason(signal);
  return `cancelled by its request (MCP notifications/cancelled, or its connection closed${detail ? `: ${detail}` : ''}) before it yielded; nothing more was sent`;
}
