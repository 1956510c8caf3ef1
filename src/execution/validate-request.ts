/** @module Validates code_execution arguments before anything runs; refusals are values. */
import {
  MAX_SOURCE_BYTES,
  MAX_TIMEOUT_MS,
  MIN_TIMEOUT_MS,
  TYPECHECK_MODES,
  type TypecheckMode,
} from '../config/defaults.ts';
import type { Language } from '../sandbox/index.ts';
import type { ErrorBody } from './types.ts';

export const EXACTLY_ONE_SOURCE_MESSAGE =
  "Provide exactly one of 'code' (inline source) or 'script' (the name of a script stored in the 'scripts' directory next to codemux's config file) — not both, not neither.";

export interface ExecutionOptions {
  timeoutMs?: number;
  maxToolCalls?: number;
  allowedServers?: string[];
  /** Overrides code_execution_typecheck for this call. */
  typecheck?: TypecheckMode;
}

export interface ValidRequest {
  source: { kind: 'code'; code: string } | { kind: 'script'; name: string };
  /** Absent when the caller did not say (a stored script's extension then decides). */
  language?: Language;
  input: Record<string, unknown>;
  options: ExecutionOptions;
}

type Checked<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

const refuse = (code: string, message: string): { ok: false; error: ErrorBody } => ({
  ok: false,
  error: { code, message },
});

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function describe(v: unknown): string {
  return v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
}

function checkOptions(raw: unknown): Checked<ExecutionOptions> {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (!isObject(raw)) return refuse('INVALID_OPTIONS', 'options must be an object');
  const options: ExecutionOptions = {};
  const { timeout_ms, max_tool_calls, allowed_servers, typecheck } = raw;
  if (timeout_ms !== undefined) {
    if (
      typeof timeout_ms !== 'number' ||
      !Number.isInteger(timeout_ms) ||
      timeout_ms < MIN_TIMEOUT_MS ||
      timeout_ms > MAX_TIMEOUT_MS
    ) {
      return refuse(
        'INVALID_OPTIONS',
        `options.timeout_ms must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS} (got ${describe(timeout_ms)})`,
      );
    }
    options.timeoutMs = timeout_ms;
  }
  if (max_tool_calls !== undefined) {
    if (
      typeof max_tool_calls !== 'number' ||
      !Number.isInteger(max_tool_calls) ||
      max_tool_calls < 0
    ) {
      return refuse(
        'INVALID_OPTIONS',
        `options.max_tool_calls must be an integer >= 0, 0 meaning unlimited (got ${describe(max_tool_calls)})`,
      );
    }
    options.maxToolCalls = max_tool_calls;
  }
  if (allowed_servers !== undefined) {
    if (!Array.isArray(allowed_servers) || !allowed_servers.every((s) => typeof s === 'string')) {
      return refuse(
        'INVALID_OPTIONS',
        `options.allowed_servers must be an array of server names (got ${describe(allowed_servers)})`,
      );
    }
    options.allowedServers = allowed_servers;
  }
  if (typecheck !== undefined) {
    if (!TYPECHECK_MODES.includes(typecheck as TypecheckMode)) {
      return refuse(
        'INVALID_OPTIONS',
        `options.typecheck must be one of ${TYPECHECK_MODES.map((m) => `"${m}"`).join(', ')} (got ${describe(typecheck)})`,
      );
    }
    options.typecheck = typecheck as TypecheckMode;
  }
  return { ok: true, value: options };
}

/** Checks raw tool arguments against the contract, in the order a reader expects. */
export function validateRequest(raw: unknown): Checked<ValidRequest> {
  if (!isObject(raw)) return refuse('INVALID_REQUEST', 'the arguments must be a JSON object');
  const { code, script, language, input } = raw;
  if (code !== undefined && typeof code !== 'string') {
    return refuse('INVALID_REQUEST', 'code must be a string of JavaScript or TypeScript source');
  }
  if (script !== undefined && typeof script !== 'string') {
    return refuse('INVALID_REQUEST', 'script must be the name of a stored script (a string)');
  }
  const hasCode = typeof code === 'string' && code !== '';
  const hasScript = typeof script === 'string' && script !== '';
  if (hasCode === hasScript) return refuse('INVALID_REQUEST', EXACTLY_ONE_SOURCE_MESSAGE);
  if (language !== undefined && language !== 'javascript' && language !== 'typescript') {
    return refuse(
      'INVALID_LANGUAGE',
      `language must be "javascript" or "typescript" (got ${describe(language)})`,
    );
  }
  if (input !== undefined && input !== null && !isObject(input)) {
    return refuse('INVALID_REQUEST', `input must be a JSON object (got ${describe(input)})`);
  }
  const options = checkOptions(raw.options);
  if (!options.ok) return options;
  if (hasCode) {
    const bytes = Buffer.byteLength(code as string);
    if (bytes > MAX_SOURCE_BYTES) {
      return refuse(
        'INVALID_REQUEST',
        `code is ${bytes} bytes; sources are limited to ${MAX_SOURCE_BYTES} bytes (256 KiB)`,
      );
    }
  }
  return {
    ok: true,
    value: {
      source: hasCode
        ? { kind: 'code', code: code as string }
        : { kind: 'script', name: script as string },
      language: language as Language | undefined,
      input: (input as Record<string, unknown> | undefined | null) ?? {},
      options: options.value,
    },
  };
}
