/** @module The tool_pins table's rows, shared by the SQLite and PostgreSQL pin stores: the definition as JSON text. */
import type { PinnedDefinition, ToolPin } from './tool-pin-store.ts';

export interface PinRow {
  server: string;
  tool: string;
  sha256: string;
  definition: string;
  pinned_at: string;
}

export const pinOf = (row: PinRow): ToolPin => ({
  server: row.server,
  tool: row.tool,
  sha256: row.sha256,
  definition: JSON.parse(row.definition) as PinnedDefinition,
  pinned_at: row.pinned_at,
});

export const pinValues = (p: ToolPin) => [
  p.server,
  p.tool,
  p.sha256,
  JSON.stringify(p.definition),
  p.pinned_at,
];
