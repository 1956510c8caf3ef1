/**
 * @module Keys the config schema does not know: each is reported with where it is and the
 * nearest known key, derived from the zod shapes (a field added to the schema is known at once).
 */
import type { z } from 'zod';
import { didYouMean } from '../util/did-you-mean.ts';

/** Settings of the config shapes codemux reads (Claude Desktop, MCPProxy, editors) that it does not use. */
const FOREIGN_TOP_LEVEL: Record<string, string> = {
  globalShortcut: 'Claude Desktop',
  preferences: 'Claude Desktop',
  $schema: 'editor',
  top_k: 'MCPProxy',
  tools_limit: 'MCPProxy',
  tool_response_limit: 'MCPProxy',
  enable_tray: 'MCPProxy',
  logging: 'MCPProxy',
  docker_isolation: 'MCPProxy',
  call_tool_timeout: 'MCPProxy',
  read_only_mode: 'MCPProxy',
  disable_management: 'MCPProxy',
  allow_server_add: 'MCPProxy',
  allow_server_remove: 'MCPProxy',
  enable_prompts: 'MCPProxy',
  registries: 'MCPProxy',
};
const FOREIGN_SERVER: Record<string, string> = {
  autoApprove: 'Claude Desktop/Cline',
  alwaysAllow: 'Cline',
  description: 'Claude Desktop/VS Code',
  envFile: 'VS Code',
  isolation: 'MCPProxy',
  created: 'MCPProxy',
  updated: 'MCPProxy',
};

/** Unwraps optional/default/nullable wrappers to the schema that holds the shape. */
function core(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { def: { type: string; innerType?: z.ZodType } };
  while (s.def.innerType && ['optional', 'default', 'nullable', 'prefault'].includes(s.def.type)) {
    s = s.def.innerType as typeof s;
  }
  return s;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(
  raw: unknown,
  schema: z.ZodType,
  where: string,
  foreign: Record<string, string>,
  out: string[],
): void {
  const s = core(schema) as z.ZodType & {
    def: { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
  };
  if (s.def.type === 'array' && Array.isArray(raw) && s.def.element) {
    for (const [i, item] of raw.entries()) walk(item, s.def.element, `${where}[${i}]`, {}, out);
    return;
  }
  if (s.def.type !== 'object' || !isPlainObject(raw) || !s.def.shape) return;
  const shape = s.def.shape;
  const place = where ? `in ${where}` : 'at the top level';
  for (const key of Object.keys(raw)) {
    const field = shape[key];
    if (field) {
      walk(raw[key], field, where ? `${where}.${key}` : key, {}, out);
    } else if (foreign[key]) {
      out.push(`key "${key}" ${place} is a ${foreign[key]} setting codemux does not use; ignored`);
    } else {
      out.push(`unknown key "${key}" ${place}${didYouMean(key, Object.keys(shape))}`);
    }
  }
}

/** Lines naming the unknown keys of the top level and its nested objects (not the servers). */
export function unknownTopLevelKeys(raw: unknown, schema: z.ZodType): string[] {
  const out: string[] = [];
  walk(raw, schema, '', FOREIGN_TOP_LEVEL, out);
  return out;
}

/** Lines naming the unknown keys of one server entry at `where` (`mcpServers.github`). */
export function unknownServerKeys(raw: unknown, schema: z.ZodType, where: string): string[] {
  const out: string[] = [];
  walk(raw, schema, where, FOREIGN_SERVER, out);
  return out;
}
