/**
 * @module The code-mode service: the `execute` tool of the code-mode dialect (Arion's) on the
 * same engine as code_execution (sandbox-run.ts): the code is an async function body over
 * `tools`, `catalog` and `console`; the result is `{status, result, error, diagnostics, logs,
 * toolCalls}` with Arion's diagnostics and limits.
 */

import { CODE_MODE_COMPUTE_MS, MAX_SOURCE_BYTES } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { RpcError } from '../errors/index.ts';
import { stripFunctionBody } from '../sandbox/index.ts';
import { activityIdFor, newRunFacts, type RunFacts, recordRun } from './activity/entry.ts';
import type { CallDetail } from './call-trace.ts';
import { featureDisabled, messageFor } from './caller-view.ts';
import {
  asEnvelope,
  type Diagnostic,
  diagnostic,
  type ExecuteOutcome,
  type ExecuteResult,
  errorResult,
  executeToolCalls,
  toDiagnostic,
  typeDiagnostics,
} from './execute-result.ts';
import { fitExecuteResult } from './fit-execute.ts';
import { mapGuestError } from './map-positions.ts';
import { CallPolicy } from './policy/call-policy.ts';
import type { CallerChannel } from './policy/types.ts';
import { reachableServers } from './run-frame.ts';
import type { RunControl } from './runs/live-run.ts';
import { runInSandbox } from './sandbox-run.ts';
import type { ExecutionServiceDeps } from './service.ts';
import {
  diagnosticsOf,
  type ProgramCheck,
  refusingFindings,
  startTypecheck,
  typeError,
} from './typecheck-step.ts';
import { ADMIN, type Caller, type Envelope } from './types.ts';

export type {
  Diagnostic,
  DiagnosticKind,
  ExecuteOutcome,
  ExecuteResult,
} from './execute-result.ts';

const FILENAME = 'execute.ts';
/** The body runs inside this wrapper; its one line before the code shifts lines by one. */
const WRAP_HEAD = 'await (async function () {\n';
const WRAP_TAIL = '\n})();';
const ARGUMENTS = new Set(['code', 'timeout_ms']);
/** Code mode's calls are `tools.*` only. */
const HIDDEN = ['call_tool', 'call_tools'];

/** One execute call's facts on its way through the service. */
interface ExecuteRun {
  timeoutMs: number | undefined;
  caller: Caller;
  config: ResolvedConfig;
  /** The calls it made, for the activity history. */
  calls: CallDetail[];
  policy: CallPolicy;
  /** The servers its calls may reach (reachableServers); undefined = every server. */
  allowedServers: ReadonlySet<string> | undefined;
  /** Its cancel signal and run (ExecuteOptions). */
  options: ExecuteOptions;
}

/** How an execute call waits when one of its calls needs approval. */
export interface ExecuteOptions {
  channel?: CallerChannel;
  /** Aborts when the run is cancelled: it stops at once with CANCELLED (see RunOptions.signal). */
  signal?: AbortSignal;
  /** The run this execution is (runs/runs.ts): its id, and its refusal when too many are alive. */
  run?: RunControl;
}

export class CodeModeService {
  private running = 0;

  constructor(private readonly deps: ExecutionServiceDeps) {}

  /** Checks the arguments as Arion does: unknown ones and wrong types are a -32603. */
  private arguments(args: unknown): { code: string; timeoutMs?: number } {
    const invalid = (detail: string) =>
      new RpcError(-32603, `Json schema validation error: ${detail}`);
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

  /** Runs one execute call; throws RpcError for the answers that are JSON-RPC errors. */
  async execute(
    args: unknown,
    caller: Caller = ADMIN,
    options: ExecuteOptions = {},
  ): Promise<ExecuteOutcome> {
    const facts: RunFacts = {
      ...newRunFacts('codemode', caller, options.run),
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
    const policy = new CallPolicy({
      ...this.deps,
      config,
      facts,
      activityId,
      run: options,
      journal: options.run?.journal,
      abandoned: () => options.run?.abandoned === true,
    });
    try {
      const unfitted = await this.executeChecked(args, caller, calls, config, policy, options);
      const outcome = fitExecuteResult(unfitted, config.codeMode.maxOutputBytes, activityId);
      this.record(facts, asEnvelope(outcome), started, calls, config);
      return activityId ? { ...outcome, activityId } : outcome;
    } catch (error) {
      if (error instanceof RpcError) {
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
    options: ExecuteOptions,
  ): Promise<ExecuteResult> {
    const { code, timeoutMs } = this.arguments(args);
    // The feature switch covers execute as it does code_execution; so does the bound on runs.
    const refusal = config.codeExecution.enabled
      ? options.run?.refusal
      : featureDisabled(config, caller);
    if (refusal) {
      const d: Diagnostic = {
        kind: 'ExecutionFailure',
        message: `${refusal.code}: ${refusal.message}`,
        code: refusal.code,
      };
      return errorResult(d);
    }
    const limits = config.codeMode;
    if (this.running >= limits.maxConcurrentExecutions) {
      throw new RpcError(-32600, 'Too many Code Mode executions are active');
    }
    this.running++;
    try {
      // An agent token reaches its own servers; the administrator every one.
      const allowedServers = reachableServers(undefined, caller);
      return await this.run(code, {
        timeoutMs,
        caller,
        config,
        calls,
        policy,
        allowedServers,
        options,
      });
    } finally {
      this.running--;
    }
  }

  private async run(code: string, run: ExecuteRun): Promise<ExecuteResult> {
    const { config } = run;
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
    const diverged = run.options.run?.journal?.bind({ code });
    if (diverged) {
      return errorResult({
        kind: 'ExecutionFailure',
        message: diverged.message,
        code: diverged.code,
      });
    }
    const check = startTypecheck(this.deps, {
      code,
      language: 'typescript',
      mode: config.codeExecution.typecheck,
      allowedServers: run.allowedServers,
      dialect: 'execute',
      caller: run.caller,
      waitMs: config.codeExecution.typecheckWaitMs,
      // Arion's programs do not say their language: JavaScript-style ones get JavaScript semantics.
      detectJavascript: true,
      span: run.options.run?.span,
    });
    const found = await refusingFindings(check);
    if (found) {
      const refused = typeError(found);
      const error: Diagnostic = {
        ...diagnostic('TypeError', refused.message, refused),
        code: refused.code,
      };
      // diagnostics: the error first (as Arion's), then each finding.
      return { ...errorResult(error), diagnostics: [error, ...typeDiagnostics(found.diagnostics)] };
    }
    return this.runChecked(stripped.code, check, run);
  }

  /** The run of a program that passed its check (or runs beside it, under `warn`). */
  private async runChecked(
    body: string,
    check: ProgramCheck | undefined,
    run: ExecuteRun,
  ): Promise<ExecuteResult> {
    let result: ExecuteResult;
    try {
      result = await this.runBody(body, run);
    } catch (error) {
      check?.drop();
      throw error;
    }
    const found = (check?.mode === 'warn' && (await diagnosticsOf(check))) || [];
    if (found.length === 0) return result;
    return { ...result, diagnostics: [...result.diagnostics, ...typeDiagnostics(found)] };
  }

  private async runBody(body: string, run: ExecuteRun): Promise<ExecuteResult> {
    const { timeoutMs, caller, config, calls, policy } = run;
    const limits = config.codeMode;
    // timeout_ms can only lower the configured limit.
    const wallMs = Math.min(timeoutMs ?? limits.executionTimeoutMs, limits.executionTimeoutMs);
    const { outcome, gate } = await runInSandbox(this.deps, {
      config,
      caller,
      policy,
      job: {
        code: WRAP_HEAD + body + WRAP_TAIL,
        filename: FILENAME,
        globalsJson: '{}',
        hide: HIDDEN,
      },
      timeoutMs: wallMs,
      memoryLimitBytes: limits.memoryLimitBytes,
      maxToolCalls: 0,
      allowedServers: run.allowedServers,
      limits: {
        maxOutputBytes: limits.maxOutputBytes,
        maxOutputBytesField: 'code_mode.max_output_bytes',
        computeMs: CODE_MODE_COMPUTE_MS,
        maxHostCalls: limits.maxHostCalls,
      },
      gate: {
        maxConcurrentToolCalls: limits.maxConcurrentToolCalls,
        // Arion bounds each call by the output bound; the memory cap is code mode's own.
        maxResultBytes: limits.maxOutputBytes,
      },
      signal: run.options.signal,
      watch: run.options.run,
    });
    calls.push(...gate.calls);
    const toolCalls = executeToolCalls(gate.toolCalls);
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
