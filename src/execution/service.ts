/**
 * @module The execution service every surface goes through: feature switch, request
 * validation, source preparation, policy, limits, the sandbox run, and the result.
 */

import type { Catalog } from '../catalog/index.ts';
import { MAX_LOG_LINE_BYTES, MAX_LOG_LINES } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { type Language, prepareSource, type SandboxExecutor } from '../sandbox/index.ts';
import { resolveScript, scriptsDir } from '../scripts/index.ts';
import type { UpstreamRegistry } from '../upstream/index.ts';
import type { Logger } from '../util/logger.ts';
import { CallGate } from './call-gate.ts';
import { mapGuestError } from './map-positions.ts';
import {
  ADMIN,
  type Caller,
  type Envelope,
  type ErrorBody,
  type ExecutionResult,
} from './types.ts';
import { validateRequest } from './validate-request.ts';

export interface ExecutionServiceDeps {
  /** The current config (a function, so a reloaded config applies to the next execution). */
  config: () => ResolvedConfig;
  registry: UpstreamRegistry;
  catalog: Catalog;
  executor: SandboxExecutor;
  logger: Logger;
}

function refusal(error: ErrorBody, started: number): ExecutionResult {
  return {
    envelope: { ok: false, error },
    toolCalls: [],
    stats: { duration_ms: elapsed(started), tool_calls: 0 },
  };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** allowed_servers (empty = all) intersected with an agent token's servers; undefined = no limit. */
function reachableServers(
  allowed: readonly string[] | undefined,
  caller: Caller,
): ReadonlySet<string> | undefined {
  const requested = allowed && allowed.length > 0 ? new Set(allowed) : undefined;
  if (caller.kind === 'admin') return requested;
  const scope = new Set(caller.servers);
  return requested ? new Set([...requested].filter((s) => scope.has(s))) : scope;
}

export class ExecutionService {
  constructor(private readonly deps: ExecutionServiceDeps) {}

  /** Runs one code_execution request for `caller`; never throws. */
  async execute(args: unknown, caller: Caller = ADMIN): Promise<ExecutionResult> {
    const started = performance.now();
    const config = this.deps.config();
    const settings = config.codeExecution;
    if (!settings.enabled) {
      return refusal(
        {
          code: 'FEATURE_DISABLED',
          message: `code execution is disabled; set "enable_code_execution": true in ${config.path ?? 'the config file'} to enable it`,
        },
        started,
      );
    }
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
    // The same name for inline and stored sources: results are byte-identical.
    const filename = language === 'typescript' ? 'code.ts' : 'code.js';
    const prepared = await prepareSource(code, language);
    if (!prepared.ok) {
      return refusal(
        {
          code: 'TRANSPILE_ERROR',
          message: prepared.message,
          line: prepared.line,
          column: prepared.column,
        },
        started,
      );
    }
    const reachable = reachableServers(request.options.allowedServers, caller);
    // Standalone, servers start on first call; a program that reads the catalog needs them all.
    if (/\bcatalog\b/.test(code)) await this.deps.registry.startForCatalog(reachable);
    const timeoutMs = request.options.timeoutMs ?? settings.timeoutMs;
    const deadlineMs = Date.now() + timeoutMs;
    const gate = new CallGate({
      registry: this.deps.registry,
      catalog: this.deps.catalog,
      config,
      maxToolCalls: request.options.maxToolCalls ?? settings.maxToolCalls,
      allowedServers: reachable,
      deadlineMs,
      logger: this.deps.logger,
    });
    let globalsJson: string;
    try {
      globalsJson = JSON.stringify({ input: request.input });
    } catch {
      return refusal({ code: 'INVALID_REQUEST', message: 'input must be JSON' }, started);
    }
    const outcome = await this.deps.executor.run(
      {
        code: prepared.code,
        filename,
        globalsJson,
        memoryLimitBytes: settings.memoryLimitMb * 1_048_576,
        limits: {
          deadlineMs,
          maxOutputBytes: settings.maxOutputBytes,
          maxLogLines: MAX_LOG_LINES,
          maxLogLineBytes: MAX_LOG_LINE_BYTES,
        },
      },
      gate,
    );
    gate.close();
    const logs = gate.logs.length > 0 ? { logs: gate.logs } : {};
    const envelope: Envelope = outcome.ok
      ? { ok: true, value: JSON.parse(outcome.valueJson), ...logs }
      : { ok: false, error: mapGuestError(outcome.error, filename, prepared.toOriginal), ...logs };
    return {
      envelope,
      toolCalls: gate.toolCalls,
      stats: { duration_ms: elapsed(started), tool_calls: gate.callCount },
    };
  }
}
