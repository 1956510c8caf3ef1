/**
 * @module The `execute` tool (code mode, Arion's dialect) on the same engine: the code is an
 * async function body over `tools`, `catalog` and `console`; the result is
 * `{status, result, error, diagnostics, logs, toolCalls}` with Arion's diagnostics and limits.
 */

import type { Catalog } from '../catalog/index.ts';
import {
  CODE_MODE_COMPUTE_MS,
  MAX_LOG_LINE_BYTES,
  MAX_LOG_LINES,
  MAX_SOURCE_BYTES,
} from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { type GuestError, type SandboxExecutor, stripFunctionBody } from '../sandbox/index.ts';
import type { UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { activityIdFor, newRunFacts, type RunFacts, recordRun } from './activity-entry.ts';
import type { ActivityRecorder } from './activity-recorder.ts';
import { CallGate } from './call-gate.ts';
import type { CallDetail } from './call-trace.ts';
import { featureDisabled, messageFor } from './caller-view.ts';
import { fitExecuteResult } from './fit-execute.ts';
import { mapGuestError } from './map-positions.ts';
import type { Approvals } from './policy/approvals.ts';
import { CallPolicy } from './policy/call-policy.ts';
import type { CallerChannel } from './policy/types.ts';
import type { ToolPins } from './tool-pins.ts';
import { ADMIN, type Caller, type Envelope } from './types.ts';

export type DiagnosticKind =
  | 'ParseError'
  | 'ExecutionFailure'
  | 'TimeoutExceeded'
  | 'ResourceLimitExceeded'
  | 'InternalError';

export interface Diagnostic {
  kind: DiagnosticKind;
  message: string;
  /** codemux's error code where Arion has no kind of its own (FEATURE_DISABLED). */
  code?: string;
  line?: number;
  column?: number;
}

export interface ExecuteResult {
  status: 'completed' | 'error';
  result: unknown;
  error: Diagnostic | null;
  diagnostics: Diagnostic[];
  logs: string[];
  toolCalls: Array<{ tool: string; ok: boolean; durationMs: number }>;
}

/** An answer outside the result: a JSON-RPC error (Arion's codes and messages). */
export class ExecuteRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ExecuteOutcome {
  result: ExecuteResult;
  /** Present when the result was trimmed to max_output_bytes. */
  truncation?: { logsOmitted: number; toolCallsOmitted: number };
  /** The activity record of this execution, when history is on. */
  activityId?: string;
}

const FILENAME = 'execute.ts';
/** The body runs inside this wrapper; its one line before the code shifts lines by one. */
const WRAP_HEAD = 'await (async function () {\n';
const WRAP_TAIL = '\n})();';
const ARGUMENTS = new Set(['code', 'timeout_ms']);

function diagnostic(
  kind: DiagnosticKind,
  message: string,
  at?: { line?: number; column?: number },
): Diagnostic {
  return { kind, message, ...(at?.line !== undefined ? { line: at.line, column: at.column } : {}) };
}

/** Engine outcome -> Arion's diagnostic kinds. */
function toDiagnostic(
  error: GuestError,
  mapped: { message: string; stack?: string; line?: number; column?: number },
): Diagnostic {
  switch (error.code) {
    case 'SYNTAX_ERROR':
      return diagnostic('ParseError', mapped.message, mapped);
    case 'TIMEOUT':
      return diagnostic('TimeoutExceeded', 'The run exceeded its wall-clock limit');
    case 'MEMORY_LIMIT_EXCEEDED':
      return diagnostic('ResourceLimitExceeded', `memory limit exceeded: ${error.message}`);
    case 'OUTPUT_TOO_LARGE':
      return diagnostic('ResourceLimitExceeded', `result size limit exceeded: ${error.message}`);
    case 'RESOURCE_LIMIT_EXCEEDED':
      return diagnostic('ResourceLimitExceeded', error.message);
    case 'EXECUTION_FAILED':
      return diagnostic('InternalError', 'An internal error occurred');
    default:
      return diagnostic(
        'ExecutionFailure',
        mapped.stack ? `${mapped.message}\n${mapped.stack}` : mapped.message,
        mapped,
      );
  }
}

export interface ExecuteServiceDeps {
  config: () => ResolvedConfig;
  registry: UpstreamRegistry;
  catalog: Catalog;
  executor: SandboxExecutor;
  logger: Logger;
  /** Where executions are recorded (absent: nothing is; `activity_enabled: false` pauses it). */
  activity?: ActivityRecorder;
  /** Tool-definition pins: a held tool is refused before dispatch. */
  pins?: ToolPins;
  /** Where calls under tool_policy `ask` wait for a decision (absent: they are refused). */
  approvals?: Approvals;
}

/** How an execute call waits when one of its calls needs approval. */
export interface ExecuteOptions {
  channel?: CallerChannel;
  signal?: AbortSignal;
}

/** A failed run's result: the diagnostic, with what the program logged and called before. */
function errorResult(
  d: Diagnostic,
  logs: string[] = [],
  toolCalls: ExecuteResult['toolCalls'] = [],
): ExecuteResult {
  return { status: 'error', result: null, error: d, diagnostics: [d], logs, toolCalls };
}

/** An execute result in the history's terms: `{ok, value}` or `{ok: false, error: {code, message}}`. */
function asEnvelope(outcome: ExecuteOutcome): Envelope {
  const { result } = outcome;
  if (result.status === 'completed') {
    return { ok: true, value: result.result, ...(result.logs.length ? { logs: result.logs } : {}) };
  }
  const d = result.error!;
  return {
    ok: false,
    error: { code: d.code ?? d.kind, message: d.message },
    ...(result.logs.length ? { logs: result.logs } : {}),
  };
}

export class ExecuteService {
  private running = 0;

  constructor(private readonly deps: ExecuteServiceDeps) {}

  /** Checks the arguments as Arion does: unknown ones and wrong types are a -32603. */
  private arguments(args: unknown): { code: string; timeoutMs?: number } {
    const invalid = (detail: string) =>
      new ExecuteRefusal(-32603, `Json schema validation error: ${detail}`);
    if (!args || typeof args !== 'object' || Array.isArray(args))
      throw invalid('the arguments must be an object');
    const a = args as Record<string, unknown>;
    const unknown = Object.keys(a).filter((k) => !ARGUMENTS.has(k));
    if (unknown.length > 0)
      throw invalid(
        `unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`,
      );
    if (typeof a.code !== 'string') throw invalid('"code" is required and must be a string');
    if (
      a.timeout_ms !== undefined &&
      !(Number.isInteger(a.timeout_ms) && (a.timeout_ms as number) >= 1)
    ) {
      throw invalid('"timeout_ms" must be an integer >= 1');
    }
    return { code: a.code, timeoutMs: a.timeout_ms as number | undefined };
  }

  /** Runs one execute call; throws ExecuteRefusal for the answers that are JSON-RPC errors. */
  async execute(
    args: unknown,
    caller: Caller = ADMIN,
    options: ExecuteOptions = {},
  ): Promise<ExecuteOutcome> {
    const facts: RunFacts = {
      ...newRunFacts('codemode', caller),
      language: 'typescript',
      input: {},
    };
    const code = (args as { code?: unknown } | null)?.code;
    if (typeof code === 'string') facts.code = code;
    const started = performance.now();
    const calls: CallDetail[] = [];
    const config = this.deps.config();
    // Known before the result is fitted: the activity_id it carries counts toward the bound.
    const activityId = activityIdFor(this.deps.activity, config, facts);
    const policy = new CallPolicy({ ...this.deps, config, facts, activityId, run: options });
    try {
      const unfitted = await this.executeChecked(args, caller, calls, config, policy);
      const outcome = fitExecuteResult(unfitted, config.codeMode.maxOutputBytes, activityId);
      this.record(facts, asEnvelope(outcome), started, calls, config);
      return activityId ? { ...outcome, activityId } : outcome;
    } catch (error) {
      if (error instanceof ExecuteRefusal) {
        const refused = error.code === -32600 ? 'TOO_MANY_EXECUTIONS' : 'INVALID_REQUEST';
        this.record(
          facts,
          { ok: false, error: { code: refused, message: error.message } },
          started,
          [],
          config,
        );
      }
      throw error;
    } finally {
      policy.close();
    }
  }

  /** Queues the execution and its calls for the history. */
  private record(
    facts: RunFacts,
    envelope: Envelope,
    started: number,
    calls: readonly CallDetail[],
    config: ResolvedConfig,
  ): void {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    recordRun(this.deps.activity, config, facts, envelope, ms, calls);
  }

  /** The run's result, not yet fitted to max_output_bytes. */
  private async executeChecked(
    args: unknown,
    caller: Caller,
    calls: CallDetail[],
    config: ResolvedConfig,
    policy: CallPolicy,
  ): Promise<ExecuteResult> {
    const { code, timeoutMs } = this.arguments(args);
    // The feature switch covers execute as it does code_execution.
    if (!config.codeExecution.enabled) {
      const refusal = featureDisabled(config, caller);
      const d: Diagnostic = {
        kind: 'ExecutionFailure',
        message: `${refusal.code}: ${refusal.message}`,
        code: refusal.code,
      };
      return errorResult(d);
    }
    const limits = config.codeMode;
    if (this.running >= limits.maxConcurrentExecutions) {
      throw new ExecuteRefusal(-32600, 'Too many Code Mode executions are active');
    }
    this.running++;
    try {
      return await this.run(code, timeoutMs, caller, config, calls, policy);
    } finally {
      this.running--;
    }
  }

  private async run(
    code: string,
    timeoutMs: number | undefined,
    caller: Caller,
    config: ResolvedConfig,
    calls: CallDetail[],
    policy: CallPolicy,
  ): Promise<ExecuteResult> {
    const limits = config.codeMode;
    const size = Buffer.byteLength(code);
    if (size > MAX_SOURCE_BYTES) {
      // Refused before anything ran: the history records it `rejected`, as code_execution's.
      return errorResult({
        ...diagnostic(
          'ResourceLimitExceeded',
          `script size limit exceeded: ${size} bytes, the limit is ${MAX_SOURCE_BYTES}`,
        ),
        code: 'INVALID_REQUEST',
      });
    }
    const stripped = await stripFunctionBody(code);
    if (!stripped.ok) return errorResult(diagnostic('ParseError', stripped.message, stripped));
    // timeout_ms can only lower the configured limit.
    const wallMs = Math.min(timeoutMs ?? limits.executionTimeoutMs, limits.executionTimeoutMs);
    const deadlineMs = Date.now() + wallMs;
    const gate = new CallGate({
      registry: this.deps.registry,
      catalog: this.deps.catalog,
      config,
      maxToolCalls: 0,
      allowedServers: caller.kind === 'agent' ? new Set(caller.servers) : undefined,
      deadlineMs,
      logger: this.deps.logger,
      maxConcurrentToolCalls: limits.maxConcurrentToolCalls,
      // Arion bounds each call by the output bound; the memory cap is code mode's own.
      maxResultBytes: limits.maxOutputBytes,
      memoryLimitBytes: limits.memoryLimitBytes,
      caller,
      pins: this.deps.pins,
      policy,
    });
    const outcome = await this.deps.executor.run(
      {
        code: WRAP_HEAD + stripped.code + WRAP_TAIL,
        filename: FILENAME,
        globalsJson: '{}',
        hide: ['call_tool', 'call_tools'],
        memoryLimitBytes: limits.memoryLimitBytes,
        limits: {
          deadlineMs,
          maxOutputBytes: limits.maxOutputBytes,
          maxOutputBytesField: 'code_mode.max_output_bytes',
          maxLogLines: MAX_LOG_LINES,
          maxLogLineBytes: MAX_LOG_LINE_BYTES,
          computeMs: CODE_MODE_COMPUTE_MS,
          maxHostCalls: limits.maxHostCalls,
        },
      },
      gate,
    );
    // Calls still in flight when the script returns are cancelled.
    gate.close();
    calls.push(...gate.calls);
    const toolCalls = gate.toolCalls.map((c) => ({
      tool: `${c.server}.${c.tool}`,
      ok: c.ok,
      durationMs: c.duration_ms,
    }));
    if (!outcome.ok) {
      const shift = (p: { line: number; column: number }) => ({
        line: Math.max(1, p.line - 1),
        column: p.column,
      });
      const mapped = mapGuestError(outcome.error, FILENAME, shift);
      const d = toDiagnostic(outcome.error, mapped);
      return errorResult({ ...d, message: messageFor(d.message, caller) }, gate.logs, toolCalls);
    }
    return {
      status: 'completed',
      result: JSON.parse(outcome.valueJson),
      error: null,
      diagnostics: [],
      logs: gate.logs,
      toolCalls,
    };
  }
}
