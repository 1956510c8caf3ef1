/**
 * @module Validation of code tool input (REST bodies, imported documents): each problem is a
 * message naming the field and the fix; limits are checked against the config's caps.
 */
import {
  DEFAULT_CODE_TOOL_MEMORY_MB,
  DEFAULT_CODE_TOOL_TIMEOUT_MS,
  MAX_SOURCE_BYTES,
} from '../config/defaults.ts';
import {
  CODE_TOOL_PARAM_TYPES,
  type CodeToolParam,
  type CodeToolParamType,
  type CodeToolSettings,
} from '../store/index.ts';
import { castValue } from './cast.ts';
import { paramNameProblem, toolNameProblem } from './names.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** The caps a tool's own limits may reach (`code_tools_max_*`). */
export interface CodeToolCaps {
  maxTimeoutMs: number;
  maxMemoryMb: number;
}

export const MAX_DESCRIPTION_CHARS = 4096;
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const bad = (message: string): { ok: false; message: string } => ({ ok: false, message });

function unknownFields(body: Record<string, unknown>, allowed: readonly string[], where: string) {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  return extra.length > 0
    ? `${where}unknown field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}; allowed: ${allowed.join(', ')}`
    : undefined;
}

function description(value: unknown, field: string): Checked<string> {
  if (value === undefined) return { ok: true, value: '' };
  if (typeof value !== 'string') return bad(`${field} must be a string`);
  if (value.length > MAX_DESCRIPTION_CHARS)
    return bad(`${field} must be at most ${MAX_DESCRIPTION_CHARS} characters`);
  return { ok: true, value };
}

/** A new tool's page-level fields (DESIGN.md's defaults). */
export const defaultSettings = (): CodeToolSettings => ({
  description: '',
  code: '',
  timeout_ms: DEFAULT_CODE_TOOL_TIMEOUT_MS,
  memory_limit_mb: DEFAULT_CODE_TOOL_MEMORY_MB,
  enabled: true,
  allowed_servers: [],
});

export const SETTINGS_FIELDS = [
  'description',
  'code',
  'timeout_ms',
  'memory_limit_mb',
  'enabled',
  'allowed_servers',
] as const;

/** The page-level fields: those present replace `current`'s; `where` prefixes field names. */
export function checkSettings(
  body: unknown,
  current: CodeToolSettings,
  caps: CodeToolCaps,
  where = '',
): Checked<CodeToolSettings> {
  if (!isObject(body)) return bad(`${where || 'the body'} must be a JSON object`);
  const next = { ...current };
  if (body.description !== undefined) {
    const desc = description(body.description, `${where}description`);
    if (!desc.ok) return desc;
    next.description = desc.value;
  }
  if (body.code !== undefined) {
    if (typeof body.code !== 'string') return bad(`${where}code must be a string`);
    if (Buffer.byteLength(body.code) > MAX_SOURCE_BYTES)
      return bad(`${where}code is larger than ${MAX_SOURCE_BYTES} bytes`);
    next.code = body.code;
  }
  if (body.timeout_ms !== undefined) {
    const t = body.timeout_ms;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > caps.maxTimeoutMs)
      return bad(
        `${where}timeout_ms must be an integer from 1 to ${caps.maxTimeoutMs} (code_tools_max_timeout_ms)`,
      );
    next.timeout_ms = t;
  }
  if (body.memory_limit_mb !== undefined) {
    const m = body.memory_limit_mb;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > caps.maxMemoryMb)
      return bad(
        `${where}memory_limit_mb must be an integer from 1 to ${caps.maxMemoryMb} (code_tools_max_memory_mb)`,
      );
    next.memory_limit_mb = m;
  }
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') return bad(`${where}enabled must be true or false`);
    next.enabled = body.enabled;
  }
  if (body.allowed_servers !== undefined) {
    const a = body.allowed_servers;
    if (!Array.isArray(a) || !a.every((s) => typeof s === 'string' && SERVER_NAME.test(s)))
      return bad(`${where}allowed_servers must be an array of server names ([] = language only)`);
    next.allowed_servers = [...new Set(a as string[])];
  }
  return { ok: true, value: next };
}

/** `PUT /code-tools/{name}` body. */
export function checkSave(
  body: unknown,
  current: CodeToolSettings,
  caps: CodeToolCaps,
): Checked<CodeToolSettings> {
  if (isObject(body)) {
    const extra = unknownFields(body, SETTINGS_FIELDS, '');
    if (extra) return bad(extra);
  }
  return checkSettings(body, current, caps);
}

const PARAM_FIELDS = ['name', 'description', 'type', 'required', 'default_value'] as const;

/** One param row; `where` prefixes field names (`params.` or `tools[0].params[1].`). */
export function checkParam(body: unknown, where = 'params.'): Checked<CodeToolParam> {
  if (!isObject(body))
    return bad(
      `${where.replace(/\.$/, '')} must be an object {name, description?, type, required?, default_value?}`,
    );
  const extra = unknownFields(body, PARAM_FIELDS, where);
  if (extra) return bad(extra);
  const nameProblem = paramNameProblem(body.name);
  if (nameProblem) return bad(nameProblem.replace('params.', where));
  const desc = description(body.description, `${where}description`);
  if (!desc.ok) return desc;
  const type = body.type;
  if (typeof type !== 'string' || !CODE_TOOL_PARAM_TYPES.includes(type as CodeToolParamType))
    return bad(`${where}type must be one of ${CODE_TOOL_PARAM_TYPES.join(', ')}`);
  if (body.required !== undefined && typeof body.required !== 'boolean')
    return bad(`${where}required must be true or false`);
  const fallback = body.default_value ?? null;
  if (fallback !== null) {
    const cast = castValue(type as CodeToolParamType, fallback);
    if (!cast.ok) return bad(`${where}default_value must be ${cast.expected}`);
  }
  return {
    ok: true,
    value: {
      name: body.name as string,
      description: desc.value,
      type: type as CodeToolParamType,
      required: body.required ?? false,
      default_value: fallback,
    },
  };
}

/** A tool as a whole: its name, page-level fields and params (an import's element, a whole-tool POST). */
export type PortableTool = CodeToolSettings & { name: string; params: CodeToolParam[] };

export const TOOL_FIELDS = ['name', ...SETTINGS_FIELDS, 'params'] as const;

/**
 * A whole tool: the page-level fields present replace `defaults`; `where` prefixes field
 * names (`tools[1].`), so a problem names its place (`tools[1].params[0].type`).
 */
export function checkTool(
  body: unknown,
  defaults: CodeToolSettings,
  caps: CodeToolCaps,
  where = '',
): Checked<PortableTool> {
  if (!isObject(body))
    return bad(`${where.replace(/\.$/, '') || 'the body'} must be a JSON object {name, ...}`);
  const extra = unknownFields(body, TOOL_FIELDS, where);
  if (extra) return bad(extra);
  const nameProblem = toolNameProblem(body.name);
  if (nameProblem) return bad(where + nameProblem);
  const settings = checkSettings(body, defaults, caps, where);
  if (!settings.ok) return settings;
  const rows = body.params ?? [];
  if (!Array.isArray(rows))
    return bad(
      `${where}params must be an array of {name, description?, type, required?, default_value?}`,
    );
  const params: CodeToolParam[] = [];
  for (const [j, row] of rows.entries()) {
    const param = checkParam(row, `${where}params[${j}].`);
    if (!param.ok) return param;
    if (params.some((p) => p.name === param.value.name))
      return bad(`${where}params[${j}].name "${param.value.name}" appears twice`);
    params.push(param.value);
  }
  return { ok: true, value: { name: body.name as string, ...settings.value, params } };
}

/** Fields past `{name, description}` that make a create record its first version, as a PUT does. */
const VERSIONED_FIELDS = SETTINGS_FIELDS.filter((f) => f !== 'description');

/**
 * `POST /code-tools` body: `{name, description?}` as in Vectoralix, or the whole tool at
 * once. `versioned` when it carries a page-level field a PUT would save as a version.
 */
export function checkCreate(
  body: unknown,
  caps: CodeToolCaps,
): Checked<{ tool: PortableTool; versioned: boolean }> {
  const tool = checkTool(body, defaultSettings(), caps);
  if (!tool.ok) return tool;
  const fields = body as Record<string, unknown>;
  const versioned = VERSIONED_FIELDS.some((f) => fields[f] !== undefined);
  return { ok: true, value: { tool: tool.value, versioned } };
}
