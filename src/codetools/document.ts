/**
 * @module The export document: every code tool with its params as one reviewable JSON file,
 * which import reads back (validated as a whole before anything is written).
 */
import type { CodeTool } from '../store/index.ts';
import {
  type Checked,
  type CodeToolCaps,
  checkTool,
  defaultSettings,
  type PortableTool,
} from './validate.ts';

export const DOCUMENT_FORMAT = 'codemux.code-tools';
export const DOCUMENT_VERSION = 1;

export type { PortableTool };

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
  const base = {
    ...defaultSettings(),
    timeout_ms: defaults.timeoutMs,
    memory_limit_mb: defaults.memoryMb,
  };
  for (const [i, raw] of (d.tools as unknown[]).entries()) {
    const tool = checkTool(raw, base, caps, `tools[${i}].`);
    if (!tool.ok) return tool;
    if (seen.has(tool.value.name))
      return { ok: false, message: `tools[${i}].name "${tool.value.name}" appears twice` };
    seen.add(tool.value.name);
    tools.push(tool.value);
  }
  return { ok: true, value: tools };
}
