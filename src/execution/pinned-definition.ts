/**
 * @module What a tool pin covers (the pinned fields of a definition and their SHA-256), how a
 * listed tool differs from its pin (a hold), and the TOOL_CHANGED message that tells it.
 */
import { createHash } from 'node:crypto';
import type { ToolPinning } from '../config/index.ts';
import type { PinnedDefinition, ToolPin } from '../store/index.ts';
import type { ToolInfo } from '../upstream/index.ts';
import { canonicalJson } from '../util/canonical-json.ts';

/** The pinned fields, in the order a TOOL_CHANGED message lists them. */
export const PINNED_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;
type Field = (typeof PINNED_FIELDS)[number];

/** A held tool, as `GET /api/v1/tools/held` shows it. */
export interface HeldTool {
  server: string;
  tool: string;
  change: 'new' | 'changed';
  /** The fields that differ from the pin (for a new tool: none). */
  fields: Field[];
  /** The approved definition; null for a tool never approved. */
  before: PinnedDefinition | null;
  after: PinnedDefinition;
  /** The SHA-256 of `after`: an approval names it, so it approves only the definition shown. */
  sha256: string;
}

/** What an approval of one held tool did. */
export type PinApproval =
  | { ok: true; approved: HeldTool }
  | { ok: false; reason: 'not_held' }
  /** The definition listed now is not the one whose digest was approved: still held. */
  | { ok: false; reason: 'changed'; held: HeldTool };

/** The pinned fields of a listed tool (absent fields stay absent). */
export function definitionOf(tool: ToolInfo): PinnedDefinition {
  const def: PinnedDefinition = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) def.title = tool.title;
  if (tool.description !== undefined) def.description = tool.description;
  if (tool.outputSchema !== undefined) def.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) def.annotations = tool.annotations;
  return def;
}

export const pinHash = (def: PinnedDefinition): string =>
  createHash('sha256').update(canonicalJson(def)).digest('hex');

const approveHint = (server: string, tool: string) =>
  `approve it with \`codemux tools approve ${server}.${tool}\``;

/** The TOOL_CHANGED message of a held tool. */
export function heldMessage(held: HeldTool, mode: ToolPinning): string {
  const name = `${held.server}.${held.tool}`;
  if (held.change === 'changed') {
    return `${name} changed since it was approved (${held.fields.join(', ')}); ${approveHint(held.server, held.tool)}`;
  }
  return mode === 'strict'
    ? `${name} has not been approved yet (tool_pinning is "strict"); ${approveHint(held.server, held.tool)}`
    : `${name} is new since the server's tools were pinned; ${approveHint(held.server, held.tool)}`;
}

/** The hold on `tool` of `server` against its pin (none: a new tool); undefined when it matches. */
export function holdOf(
  server: string,
  tool: ToolInfo,
  sha256: string,
  pin: ToolPin | undefined,
): HeldTool | undefined {
  if (pin?.sha256 === sha256) return undefined;
  const after = definitionOf(tool);
  if (!pin) {
    return { server, tool: tool.name, change: 'new', fields: [], before: null, after, sha256 };
  }
  const before = pin.definition;
  const fields = PINNED_FIELDS.filter((f) => canonicalJson(before[f]) !== canonicalJson(after[f]));
  return { server, tool: tool.name, change: 'changed', fields, before, after, sha256 };
}
