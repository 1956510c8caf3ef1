/** @module The tool pin store contract: pinned tool definitions per server, and the servers seen. */

/** The fields of a tool's definition that are pinned (MCP `Tool`, as the upstream listed it). */
export interface PinnedDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** One pinned tool: the SHA-256 of its canonical definition, and the definition itself. */
export interface ToolPin {
  server: string;
  tool: string;
  /** Lowercase hex SHA-256 of the canonical JSON (keys sorted) of `definition`. */
  sha256: string;
  definition: PinnedDefinition;
  pinned_at: string;
}

/**
 * Tool-definition pins, per server and tool. A server is "seen" once its first tool list was
 * judged (tofu pins that list then); pins and seen servers survive restarts.
 */
export interface ToolPinStore {
  /** Every pin, and every server seen. */
  load(): Promise<{ pins: ToolPin[]; seen: string[] }>;
  /**
   * Marks `server` seen; when it was not seen before (on any instance), writes `pins` with it
   * and answers true. When it was, writes nothing and answers false.
   */
  firstSight(server: string, pins: readonly ToolPin[]): Promise<boolean>;
  /** Writes (or replaces) pins, marking their servers seen. */
  put(pins: readonly ToolPin[]): Promise<void>;
  /** Calls `listener` when another instance changed pins; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}
