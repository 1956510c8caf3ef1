/**
 * @module The export document: every code tool with its params as one reviewable JSON file,
 * which import reads back (validated as a whole before anything is written).
 */
import type { CodeTool, CodeToolParam, CodeToolSettings } from '../store/index.ts';
import { toolNameProblem } from './names.ts';
import {
  type Checked,
  type CodeToolCaps,
  checkParam,
  checkSettings,
  SETTINGS_FIELDS,
} from './validate.ts';

export const DOCUMENT_FORMAT = 'codemux.code-tools';
export const DOCUMENT_VERSION = 1;

export type PortableTool = CodeToolSettings & { name: string; params: CodeToolParam[] };

export interface CodeToolsDocument {
  format: typeof DOCUMENT_FORMAT;
  version: typeof DOCUMENT_VERSION;
  exported_at: string;
  tools: PortableTool[];
}

/** The document of `tools` (their versions and timestamps stay behind). */
export function exportDocument(tools: readonly CodeTool[]): CodeToolsDocument {
  return {
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    exported_at: new Date().toISOString(),
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      code: t.code,
      timeout_ms: t.timeout_ms,
      memory_limit_mb: t.memory_limit_mb,
      enabled: t.enabled,
      allowed_servers: t.allowed_servers,
      params: t.params,
    })),
  };
}

const DEFAULTS: CodeToolSettings = {
  description: '',
  code: '',
  timeout_ms: 0,
  memory_limit_mb: 0,
  enabled: true,
  allowed_servers: [],
};

/** Reads a document back; every problem names its place (`tools[1].params[0].type`). */
export function parseDocument(
  doc: unknown,
  caps: CodeToolCaps,
  defaults: { timeoutMs: number; memoryMb: number },
): Checked<PortableTool[]> {
  const d = doc as Partial<CodeToolsDocument> | null;
  if (d === null || typeof d !== 'object' || d.format !== DOCUMENT_FORMAT)
    return {
      ok: false,
      message: `not a code tools document: "format" must be "${DOCUMENT_FORMAT}"`,
    };
  if (d.version !== DOCUMENT_VERSION)
    return {
      ok: false,
      message: `version must be ${DOCUMENT_VERSION} (this codemux reads that version)`,
    };
  if (!Array.isArray(d.tools)) return { ok: false, message: 'tools must be an array' };
  const tools: PortableTool[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of (d.tools as unknown[]).entries()) {
    const where = `tools[${i}].`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      return { ok: false, message: `tools[${i}] must be an object` };
    const t = raw as Record<string, unknown>;
    const extra = Object.keys(t).filter(
      (k) => k !== 'name' && k !== 'params' && !(SETTINGS_FIELDS as readonly string[]).includes(k),
    );
    if (extra.length > 0) return { ok: false, message: `${where}unknown field "${extra[0]}"` };
    const nameProblem = toolNameProblem(t.name);
    if (nameProblem) return { ok: false, message: where + nameProblem };
    if (seen.has(t.name as string))
      return { ok: false, message: `${where}name "${t.name}" appears twice` };
    seen.add(t.name as string);
    const settings = checkSettings(
      t,
      { ...DEFAULTS, timeout_ms: defaults.timeoutMs, memory_limit_mb: defaults.memoryMb },
      caps,
      where,
    );
    if (!settings.ok) return settings;
    const params: CodeToolParam[] = [];
    const rows = t.params ?? [];
    if (!Array.isArray(rows)) return { ok: false, message: `${where}params must be an array` };
    for (const [j, row] of rows.entries()) {
      const param = checkParam(row, `${where}params[${j}].`);
      if (!param.ok) return param;
      if (params.some((p) => p.name === param.value.name))
        return {
          ok: false,
          message: `${where}params[${j}].name "${param.value.name}" appears twice`,
        };
      params.push(param.value);
    }
    tools.push({ name: t.name as string, ...settings.value, params });
  }
  return { ok: true, value: tools };
}
