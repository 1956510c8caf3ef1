/** @module The catalog's shapes: tool entries, pages, envelopes (Arion's catalog dialect). */

export interface ToolEntry {
  namespace: string;
  name: string;
  qualifiedName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** MCP tool annotations (readOnlyHint, destructiveHint, ...) as the server listed them. */
  annotations?: Record<string, unknown>;
  /** Held by tool pinning: listed, but its calls are refused until an administrator approves it. */
  held?: boolean;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
  nextOffset?: number;
}

export type CatalogEnvelope =
  | { ok: true; data: unknown }
  | {
      ok: false;
      error: {
        code: 'invalid_input' | 'not_found' | 'catalog_unavailable';
        message: string;
        retryable: boolean;
      };
    };

export interface Toolkit {
  name: string;
  description: string;
  instructions: string;
  tools: string[];
}
