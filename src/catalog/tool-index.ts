/** @module The searchable registry of upstream tools: BM25 (MiniSearch) over names, descriptions and parameter names. */
import MiniSearch from 'minisearch';
import type { ToolEntry } from './types.ts';

/** Splits `get_pull_request`, `getPullRequest` and `get-pull-request` into the same words. */
function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

interface Document {
  id: number;
  name: string;
  namespace: string;
  description: string;
  params: string;
}

function parameterNames(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties).join(' ') : '';
}

export class ToolIndex {
  private readonly search: MiniSearch<Document>;

  constructor(readonly entries: readonly ToolEntry[]) {
    this.search = new MiniSearch<Document>({
      fields: ['name', 'namespace', 'description', 'params'],
      tokenize,
      processTerm: (term) => term.toLowerCase(),
      searchOptions: {
        boost: { name: 3, params: 1.5, namespace: 1, description: 1 },
        prefix: true,
        fuzzy: 0.15,
      },
    });
    this.search.addAll(
      entries.map((e, id) => ({
        id,
        name: e.name,
        namespace: e.namespace,
        description: e.description,
        params: parameterNames(e.inputSchema),
      })),
    );
  }

  /** Entries best match first, among those `keep` accepts. */
  query(text: string, keep: (entry: ToolEntry) => boolean, limit: number): ToolEntry[] {
    const out: ToolEntry[] = [];
    for (const hit of this.search.search(text)) {
      const entry = this.entries[hit.id as number]!;
      if (!keep(entry)) continue;
      out.push(entry);
      if (out.length === limit) break;
    }
    return out;
  }
}
