/**
 * @module The execution service every surface goes through: feature switch, request
 * validation, source preparation, policy, limits, the sandbox run, and the result.
 */

import { castArguments } from '../codetools/index.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { type Language, type ParseFailure, prepareSource } from '../sandbox/index.ts';
import { resolveScript, scriptsDir } from '../scripts/index.ts';
import type { ActivitySurface, CodeTool } from '../store/index.ts';
import { activityIdFor, newRunFacts, type RunFacts, recordRun } from './activity/entry.ts';
import type { ActivityRecorder } from './activity/recorder.ts';
import type { CallDetail } from './call-trace.ts';
import { errorFor, featureDisabled } from './caller-view.ts';
import { fitAnswer } from './fit-output.ts';
import { cannotFit, type InputFacts, inputTooLarge } from './input-fit.ts';
import { mapGuestError, preferParserError } from './map-positions.ts';
import type { Approvals } from './policy/approvals.ts';
import { CallPolicy } from './policy/call-policy.ts';
import type { InputRequests } from './policy/input-requests.ts';
import type { CallerChannel } from './policy/types.ts';
import { elapsed, positioned, reachableServers, refusal } from './run-frame.ts';
import type { RunControl } from './runs/live-run.ts';
import { runInSandbox, type SandboxRunDeps } from './sandbox-run.ts';
import {
  diagnosticsOf,
  type ProgramCheck,
  refusingFindings,
  startTypecheck,
  type TypecheckDeps,
  typeError,
} from './typecheck-step.ts';
import {
  ADMIN,
  type Caller,
  type Envelope,
  type ExecutionResult,
  mayUseCodeTool,
} from './types.ts';
import { validateRequest } from './validate-request.ts';

/** What both services (this one and code mode's) use of the runtime. */
export interface ExecutionServiceDeps extends TypecheckDeps, SandboxRunDeps {
  /** The current config (a function, so a reloaded config applies to the next execution). */
  config: () => ResolvedConfig;
  /** Where executions are recorded (absent: nothing is; `activity_enabled: false` pauses it). */
  activity?: ActivityRecorder;
  /** Where calls under tool_policy `ask` wait for a decision (absent: they are refused). */
  approvals?: Approvals;
  /** Where an upstream's requests for input during a call wait for an answer (absent: declined). */
  inputs?: InputRequests;
}

/** Where a run comes from, and how it runs. */
export interface RunOptions {
  /** The surface recorded in the activity history (default `mcp`). */
  surface?: ActivitySurface;
  /** A code tool's call that did not come over MCP: where it came from (the metrics' surface). */
  via?: ActivitySurface;
  /** Upstream calls are judged, recorded and answered by a stub instead of being sent. */
  dryRun?: boolean;
  /** The caller's own client or terminal: asked first when a call needs approval. */
  channel?: CallerChannel;
  /**
   * Aborts when the run is cancelled (or its request, before it yielded): the program stops at
   * once with CANCELLED, its in-flight calls are cancelled and its pending approvals expire.
   */
  signal?: AbortSignal;
  /** The run this execution is (runs/runs.ts): its id, and its refusal when too many are alive. */
  run?: RunControl;
}

/** A result on its way out, with the calls it made for the activity history. */
type Run = ExecutionResult & { calls?: readonly CallDetail[] };

/** What the sandbox run of any dialect needs once the source is prepared. */
interface SandboxRun {
  started: number;
  config: ResolvedConfig;
  code: string;
  filename: string;
  toOriginal: Parameters<typeof mapGuestError>[2];
  /** The parser's error when the source does not parse. */
  syntaxError?: ParseFailure;
  globalsJson: string;
  /** What names the globals in a refusal when they do not fit in the sandbox's memory. */
  inputFacts: InputFacts;
  /** The type check running beside the program (`warn`): its findings join the answer. */
  typecheck?: ProgramCheck;
  dateGlobals?: string[];
  undefinedGlobals?: string[];
  hide?: string[];
  timeoutMs: number;
  memoryLimitMb: number;
  maxToolCalls: number;
  allowedServers: ReadonlySet<string> | undefined;
  caller: Caller;
  /** The execution's facts (its record's id, the program as sent) and how it runs. */
  facts: RunFacts;
  options: RunOptions;
}

/** A code tool without allowed_servers is the language only, as in Vectoralix. */
const LANGUAGE_ONLY_HIDDEN = ['call_tool', 'call_tools', 'tools', 'catalog'];

export class ExecutionService {
  constructor(private readonly deps: ExecutionServiceDeps) {}

  /** Runs one code_execution request for `caller`; never throws. */
  async execute(
    args: unknown,
    caller: Caller = ADMIN,
    options: RunOptions = {},
  ): Promise<ExecutionResult> {
    const facts = newRunFacts(options.surface ?? 'mcp', caller, options.run);
    if (options.dryRun) facts.dryRun = true;
    // What the request says, as far as it can be read (a refused request is recorded too).
    const request = (typeof args === 'object' && args !== null ? args : {}) as Record<
      string,
      unknown
    >;
    if (typeof request.code === 'string') facts.code = request.code;
    if (typeof request.script === 'string') facts.script = request.script;
    if (typeof request.language === 'string') facts.language = request.language;
    facts.input = request.input ?? {};
    return this.record(facts, await this.executeRequest(args, caller, options, facts));
  }

  private async executeRequest(
    args: unknown,
    caller: Caller,
    options: RunOptions,
    facts: RunFacts,
  ): Promise<Run> {
    const started = performance.now();
    const config = this.deps.config();
    const settings = config.codeExecution;
    if (!settings.enabled) return refusal(featureDisabled(config, caller), started);
    if (options.run?.refusal) return refusal(options.run.refusal, started);
    const checked = validateRequest(args);
    if (!checked.ok) return refusal(checked.error, started);
    const request = checked.value;
    let code: string;
    let language: Language;
    if (request.source.kind === 'script') {
      const script = resolveScript(request.source.name, {
        dir: scriptsDir(config),
        admin: caller.kind === 'admin',
        language: request.language,
      });
      if (!script.ok) return refusal({ code: script.code, message: script.message }, started);
      code = script.source;
      language = script.language;
    } else {
      code = request.source.code;
      language = request.language ?? 'javascript';
    }
    facts.code = code;
    facts.language = language;
    const diverged = options.run?.journal?.bind({
      language,
      code,
      input: request.input,
      options: request.options,
    });
    if (diverged) return refusal(diverged, started);
    // The same name for inline and stored sources: results are byte-identical.
    const filename = language === 'typescript' ? 'code.ts' : 'code.js';
    const prepared = await prepareSource(code, language);
    if (!prepared.ok) return refusal(positioned('TRANSPILE_ERROR', prepared), started);
    let globalsJson: string;
    try {
      globalsJson = JSON.stringify({ input: request.input });
    } catch {
      return refusal({ code: 'INVALID_REQUEST', message: 'input must be JSON' }, started);
    }
    const inputFacts: InputFacts = {
      what: 'input',
      bytes: Buffer.byteLength(globalsJson),
      capMb: settings.memoryLimitMb,
      capField: 'code_execution_memory_limit_mb',
    };
    if (cannotFit(inputFacts)) return refusal(inputTooLarge(inputFacts), started);
    const allowedServers = reachableServers(request.options.allowedServers, caller);
    const check = startTypecheck(this.deps, {
      code,
      language,
      mode: request.options.typecheck ?? settings.typecheck,
      allowedServers,
      dialect: 'code_execution',
      caller,
      waitMs: settings.typecheckWaitMs,
      span: options.run?.span,
    });
    const refused = await refusingFindings(check);
    if (refused) return refusal(typeError(refused), started, refused.diagnostics);
    try {
      return await this.runSandbox({
        started,
        config,
        code: prepared.code,
        filename,
        toOriginal: prepared.toOriginal,
        syntaxError: prepared.syntaxError,
        globalsJson,
        inputFacts,
        ...(check?.mode === 'warn' ? { typecheck: check } : {}),
        timeoutMs: request.options.timeoutMs ?? settings.timeoutMs,
        memoryLimitMb: settings.memoryLimitMb,
        maxToolCalls: request.options.maxToolCalls ?? settings.maxToolCalls,
        allowedServers,
        caller,
        facts,
        options,
      });
    } finally {
      // Whatever path the answer took, a check still waiting for the worker is not wanted.
      check?.drop();
    }
  }

  /**
   * Fits the answer to code_execution_max_output_bytes, every byte it carries counted (its
   * activity_id too, fit-output.ts), then queues it and its calls for the history.
   */
  private record(facts: RunFacts, run: Run): ExecutionResult {
    const { calls = [], ...unfitted } = run;
    const config = this.deps.config();
    const activityId = activityIdFor(this.deps.activity, config, facts);
    const result = {
      ...unfitted,
      ...fitAnswer(unfitted, config.codeExecution.maxOutputBytes, activityId),
    };
    recordRun(this.deps.activity, config, facts, result.envelope, result.stats.duration_ms, calls);
    return activityId ? { ...result, activityId } : result;
  }

  /**
   * Runs one call of a code tool for `caller`: its arguments are cast to the params' types
   * (refused with INVALID_ARGS before any JavaScript runs), then the body runs with the params
   * as top-level variables under the tool's own timeout and memory cap. Never throws.
   */
  async runCodeTool(
    tool: CodeTool,
    args: unknown,
    caller: Caller = ADMIN,
    options: Omit<RunOptions, 'surface' | 'dryRun'> = {},
  ): Promise<ExecutionResult> {
    const facts = newRunFacts('code_tool', caller, options.run);
    if (options.via) facts.via = options.via;
    facts.tool = tool.name;
    facts.code = tool.code;
    facts.language = 'javascript';
    facts.input = args ?? {};
    return this.record(facts, await this.runCodeToolBody(tool, args, caller, facts, options));
  }

  private async runCodeToolBody(
    tool: CodeTool,
    args: unknown,
    caller: Caller,
    facts: RunFacts,
    options: RunOptions,
  ): Promise<Run> {
    const started = performance.now();
    const config = this.deps.config();
    if (!config.codeExecution.enabled) return refusal(featureDisabled(config, caller), started);
    if (options.run?.refusal) return refusal(options.run.refusal, started);
    if (!mayUseCodeTool(caller, tool.name)) {
      return refusal(
        {
          code: 'ACCESS_DENIED',
          message: `this agent token may not call the code tool "${tool.name}" (create the token with --code-tools ${tool.name})`,
        },
        started,
      );
    }
    const cast = castArguments(tool.params, args);
    if (!cast.ok) return refusal({ code: 'INVALID_ARGS', message: cast.message }, started);
    const diverged = options.run?.journal?.bind({
      code: tool.code,
      allowed_servers: tool.allowed_servers,
      args: cast.value,
    });
    if (diverged) return refusal(diverged, started);
    const filename = `${tool.name}.js`;
    const prepared = await prepareSource(tool.code, 'javascript');
    if (!prepared.ok) return refusal(positioned('SYNTAX_ERROR', prepared), started);
    const languageOnly = tool.allowed_servers.length === 0;
    const globalsJson = JSON.stringify(cast.value.values);
    // The config's caps apply even to a tool saved before they were lowered.
    const memoryLimitMb = Math.min(tool.memory_limit_mb, config.codeTools.maxMemoryMb);
    const inputFacts: InputFacts = {
      what: 'arguments',
      bytes: Buffer.byteLength(globalsJson),
      capMb: memoryLimitMb,
      capField:
        memoryLimitMb < tool.memory_limit_mb
          ? 'code_tools_max_memory_mb'
          : `the code tool's memory_limit_mb`,
    };
    if (cannotFit(inputFacts)) return refusal(inputTooLarge(inputFacts), started);
    return this.runSandbox({
      started,
      config,
      code: prepared.code,
      filename,
      toOriginal: prepared.toOriginal,
      syntaxError: prepared.syntaxError,
      globalsJson,
      inputFacts,
      dateGlobals: cast.value.dates,
      undefinedGlobals: cast.value.omitted,
      timeoutMs: Math.min(tool.timeout_ms, config.codeTools.maxTimeoutMs),
      memoryLimitMb,
      maxToolCalls: config.codeExecution.maxToolCalls,
      // [] = the language only: nothing reachable, and no tool functions in scope.
      allowedServers:
        reachableServers(languageOnly ? [] : tool.allowed_servers, caller) ?? new Set(),
      hide: languageOnly ? LANGUAGE_ONLY_HIDDEN : undefined,
      caller,
      facts,
      options,
    });
  }

  /** The part every dialect of this service shares: the gate, the sandbox run, the envelope. */
  private async runSandbox(run: SandboxRun): Promise<Run> {
    const { started, config } = run;
    const settings = config.codeExecution;
    // Standalone, servers start on first call; a program that reads the catalog needs them all
    // (the wait is not counted in its timeout).
    if (/\bcatalog\b/.test(run.code)) await this.deps.registry.startForCatalog(run.allowedServers);
    const { outcome, gate } = await runInSandbox(this.deps, {
      config,
      caller: run.caller,
      policy: new CallPolicy({
        ...this.deps,
        config,
        facts: run.facts,
        activityId: activityIdFor(this.deps.activity, config, run.facts),
        run: run.options,
        journal: run.options.run?.journal,
        abandoned: () => run.options.run?.abandoned === true,
      }),
      job: {
        code: run.code,
        filename: run.filename,
        globalsJson: run.globalsJson,
        ...(run.dateGlobals && run.dateGlobals.length > 0 ? { dateGlobals: run.dateGlobals } : {}),
        ...(run.undefinedGlobals && run.undefinedGlobals.length > 0
          ? { undefinedGlobals: run.undefinedGlobals }
          : {}),
        ...(run.hide ? { hide: run.hide } : {}),
      },
      timeoutMs: run.timeoutMs,
      memoryLimitBytes: run.memoryLimitMb * 1_048_576,
      maxToolCalls: run.maxToolCalls,
      allowedServers: run.allowedServers,
      limits: { maxOutputBytes: settings.maxOutputBytes, maxHostCalls: settings.maxHostCalls },
      gate: { dryRun: run.options.dryRun },
      signal: run.options.signal,
      watch: run.options.run,
    });
    // The guest could not parse the input: a refusal, as if the host had seen it at once.
    if (!outcome.ok && outcome.error.code === 'GLOBALS_TOO_LARGE') {
      const why = outcome.error.message === 'stack overflow' ? 'stack overflow' : 'out of memory';
      return refusal(inputTooLarge(run.inputFacts, why), started);
    }
    const logs = gate.logs.length > 0 ? { logs: gate.logs } : {};
    let envelope: Envelope;
    if (outcome.ok) {
      envelope = { ok: true, value: JSON.parse(outcome.valueJson), ...logs };
    } else {
      const error = preferParserError(
        mapGuestError(outcome.error, run.filename, run.toOriginal),
        run.syntaxError,
      );
      if (error.code === 'RESOURCE_LIMIT_EXCEEDED') {
        error.message += ' (code_execution_max_host_calls)';
      }
      envelope = { ok: false, error: errorFor(error, run.caller), ...logs };
    }
    const diagnostics = await diagnosticsOf(run.typecheck);
    if (diagnostics) envelope.diagnostics = diagnostics;
    // Fitted to the output bound by record(), with everything the answer carries.
    return {
      envelope,
      toolCalls: gate.toolCalls,
      stats: { duration_ms: elapsed(started), tool_calls: gate.callCount },
      calls: gate.calls,
    };
  }
}
