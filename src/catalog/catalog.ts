/**
 * @module The catalog operations of the code mode dialect (`catalog.*`), over the tools a
 * caller may use: namespaces, search, list, describe (with a TypeScript signature),
 * toolkits. Every operation answers an envelope; none throws.
 */
import { MAX_SEARCH_QUERY_CHARS } from '../config/defaults.ts';
import type { DeclarationDialect, ScopeInput } from './declarations.ts';
import { page, pageParams } from './paging.ts';
import { ToolIndex } from './tool-index.ts';
import type { CatalogEnvelope, ToolEntry, Toolkit } from './types.ts';
import { toolSignature } from './typescript.ts';

/** What the catalog reads: the tools of every usable server, and the configured toolkits. */
export interface CatalogSource {
  /** Tools of servers that are neither disabled nor quarantined. */
  entries(): readonly ToolEntry[];
  toolkits(): readonly Toolkit[];
  /** Changes whenever the tool set does (the index is rebuilt then). */
  version(): number;
  /** Default and cap of catalog.tools.search's limit. */
  maxSearchResults(): number;
  /** Usable servers whose tools are not known right now (connecting, or failed to connect). */
  unavailable(): readonly string[];
}

export type CatalogOp =
  | 'namespaces.list'
  | 'tools.search'
  | 'tools.list'
  | 'tools.describe'
  | 'toolkits.list'
  | 'toolkits.get';

export const CATALOG_OPS: readonly CatalogOp[] = [
  'namespaces.list',
  'tools.search',
  'tools.list',
  'tools.describe',
  'toolkits.list',
  'toolkits.get',
];

const invalid = (message: string): CatalogEnvelope => ({
  ok: false,
  error: { code: 'invalid_input', message, retryable: false },
});
const notFound = (message: string): CatalogEnvelope => ({
  ok: false,
  error: { code: 'not_found', message, retryable: false },
});
const unavailable = (namespace: string): CatalogEnvelope => ({
  ok: false,
  error: {
    code: 'catalog_unavailable',
    message: `the tools of "${namespace}" are not known right now (the server is connecting or failed to connect); retry shortly`,
    retryable: true,
  },
});
const summary = (e: ToolEntry) => ({
  namespace: e.namespace,
  name: e.name,
  qualifiedName: e.qualifiedName,
  description: e.description,
  // Only when the server gave some: an agent can see which tools ask before they run.
  ...(e.annotations && Object.keys(e.annotations).length > 0 ? { annotations: e.annotations } : {}),
  ...(e.held ? { held: true } : {}),
});

function text(
  params: Record<string, unknown>,
  name: string,
  required: boolean,
): string | undefined | CatalogEnvelope {
  const value = params[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    return invalid(`${name} must be a non-empty string`);
  return value;
}

const isEnvelope = (v: unknown): v is CatalogEnvelope =>
  typeof v === 'object' && v !== null && 'ok' in v;

/** One caller's declarations: a key that changes whenever they would, and what they are written from. */
export interface DeclarationScope {
  key: string;
  /** The caller's tools (held ones marked) and its servers whose tools are not known yet. */
  source: () => ScopeInput;
}

export class Catalog {
  private index: ToolIndex | undefined;
  private indexVersion = -1;

  constructor(private readonly source: CatalogSource) {}

  private tools(): ToolIndex {
    const version = this.source.version();
    if (!this.index || version !== this.indexVersion) {
      this.index = new ToolIndex(this.source.entries());
      this.indexVersion = version;
    }
    return this.index;
  }

  /**
   * What the TypeScript declarations of a caller's tools are written from (declarations.ts,
   * by the type checker's worker), for a caller who may reach `allowed` (undefined: every
   * server). The key names the catalog's version, the dialect, the servers (as JSON, so no
   * list of names like ["*"] or ["a,b"] can share another's key) and the servers whose tools
   * are not known yet: the same key always means the same declarations.
   */
  declarations(
    allowed: ReadonlySet<string> | undefined,
    dialect: DeclarationDialect,
  ): DeclarationScope {
    const may = (namespace: string) => !allowed || allowed.has(namespace);
    const tools = this.tools();
    const unknownServers = this.source.unavailable().filter(may).sort();
    const scope = allowed ? JSON.stringify([...allowed].sort()) : '*';
    const key = `${this.indexVersion}|${dialect}|${scope}|${unknownServers.join(',')}`;
    return {
      key,
      source: () => ({
        entries: tools.entries.filter((e) => may(e.namespace)),
        unknownServers,
        dialect,
      }),
    };
  }

  /**
   * Tools `may` accepts, at most `limit`: best match for `query` first by the same BM25 index
   * as tools.search (without its max_results cap: the dashboard pages through more), or every
   * one by qualified name when `query` is blank.
   */
  find(query: string, may: (namespace: string) => boolean, limit: number): ToolEntry[] {
    const keep = (e: ToolEntry) => may(e.namespace);
    if (query.trim() === '')
      return this.tools()
        .entries.filter(keep)
        .sort((a, b) => a.qualifiedName.localeCompare(b.qualifiedName))
        .slice(0, limit);
    return this.tools().query(query, keep, limit);
  }

  /** Runs `op` for a caller who may use the servers `may` accepts. */
  run(op: string, params: unknown, may: (namespace: string) => boolean): CatalogEnvelope {
    if (params === undefined) params = {};
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      return invalid(`catalog.${op}: the argument must be an object`);
    }
    const p = params as Record<string, unknown>;
    const visible = this.tools().entries.filter((e) => may(e.namespace));
    switch (op) {
      case 'namespaces.list': {
        const paging = pageParams(p);
        if (typeof paging === 'string') return invalid(paging);
        const counts = new Map<string, number>();
        for (const e of visible) counts.set(e.namespace, (counts.get(e.namespace) ?? 0) + 1);
        const items = [...counts]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([namespace, toolCount]) => ({ namespace, toolCount }));
        return { ok: true, data: page(items, paging.limit, paging.offset) };
      }
      case 'tools.search': {
        const query = text(p, 'query', true);
        if (isEnvelope(query)) return query;
        if (query!.length > MAX_SEARCH_QUERY_CHARS)
          return invalid(
            `query must be at most ${MAX_SEARCH_QUERY_CHARS} characters (got ${query!.length}); search with a few keywords`,
          );
        const namespace = text(p, 'namespace', false);
        if (isEnvelope(namespace)) return namespace;
        const max = this.source.maxSearchResults();
        const paging = pageParams({ limit: p.limit }, { limit: max, max });
        if (typeof paging === 'string') return invalid(paging);
        const keep = (e: ToolEntry) =>
          may(e.namespace) && (namespace === undefined || e.namespace === namespace);
        return {
          ok: true,
          data: { items: this.tools().query(query!, keep, paging.limit).map(summary) },
        };
      }
      case 'tools.list': {
        const namespace = text(p, 'namespace', true);
        if (isEnvelope(namespace)) return namespace;
        const paging = pageParams(p);
        if (typeof paging === 'string') return invalid(paging);
        const items = visible
          .filter((e) => e.namespace === namespace)
          .sort((a, b) => a.name.localeCompare(b.name));
        if (items.length === 0)
          return this.missing(
            namespace!,
            may,
            `no namespace "${namespace}" with tools you may use`,
          );
        return { ok: true, data: page(items.map(summary), paging.limit, paging.offset) };
      }
      case 'tools.describe': {
        const namespace = text(p, 'namespace', true);
        if (isEnvelope(namespace)) return namespace;
        const name = text(p, 'name', true);
        if (isEnvelope(name)) return name;
        const entry = visible.find((e) => e.namespace === namespace && e.name === name);
        if (!entry)
          return this.missing(namespace!, may, `no tool "${namespace}.${name}" that you may use`);
        return {
          ok: true,
          data: {
            ...summary(entry),
            inputSchema: entry.inputSchema,
            outputSchema: entry.outputSchema ?? null,
            typescript: toolSignature(entry),
          },
        };
      }
      case 'toolkits.list': {
        const paging = pageParams(p);
        if (typeof paging === 'string') return invalid(paging);
        const items = this.visibleToolkits(visible).map((k) => ({
          name: k.name,
          description: k.description,
          toolCount: k.tools.length,
        }));
        return { ok: true, data: page(items, paging.limit, paging.offset) };
      }
      case 'toolkits.get': {
        const name = text(p, 'name', true);
        if (isEnvelope(name)) return name;
        const kit = this.visibleToolkits(visible).find((k) => k.name === name);
        if (!kit) return notFound(`no toolkit "${name}" that you may use`);
        return {
          ok: true,
          data: {
            name: kit.name,
            description: kit.description,
            content: this.toolkitContent(kit, visible),
          },
        };
      }
      default:
        return invalid(`unknown catalog operation "${op}"`);
    }
  }

  /** not_found, or catalog_unavailable when the namespace is usable but its tools are not known yet. */
  private missing(
    namespace: string,
    may: (namespace: string) => boolean,
    message: string,
  ): CatalogEnvelope {
    return may(namespace) && this.source.unavailable().includes(namespace)
      ? unavailable(namespace)
      : notFound(message);
  }

  /** Toolkits whose every member exists and is usable by the caller, sorted by name. */
  private visibleToolkits(visible: readonly ToolEntry[]): Toolkit[] {
    const names = new Set(visible.map((e) => e.qualifiedName));
    return this.source
      .toolkits()
      .filter((k) => k.tools.every((t) => names.has(t)))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  private toolkitContent(kit: Toolkit, visible: readonly ToolEntry[]): string {
    const parts = [kit.instructions.trim()];
    for (const qualified of kit.tools) {
      const e = visible.find((v) => v.qualifiedName === qualified)!;
      parts.push(
        [
          `## ${e.qualifiedName}`,
          `Invocation: await tools[${JSON.stringify(e.qualifiedName)}](args)`,
          e.description,
          `Input schema: ${JSON.stringify(e.inputSchema)}`,
          `Output schema: ${e.outputSchema ? JSON.stringify(e.outputSchema) : 'none (data is the text content)'}`,
        ].join('\n'),
      );
    }
    return parts.filter(Boolean).join('\n\n');
  }
}
