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

/**
 * A search's cost grows with its distinct terms and with fuzzy matching of each: a query keeps
 * its first MAX_SEARCH_TERMS distinct words, and only words of FUZZY_MIN_CHARS or more match
 * fuzzily, within MAX_FUZZY_EDITS edits. So one search stays around a millisecond however
 * long the query (at most 512 characters, refused above by the catalog).
 */
export const MAX_SEARCH_TERMS = 12;
const FUZZY_MIN_CHARS = 4;
const MAX_FUZZY_EDITS = 2;

/** The words a query is searched by: lower case, distinct, at most MAX_SEARCH_TERMS. */
export function searchTerms(text: string): string[] {
  return [...new Set(tokenize(text).map((t) => t.toLowerCase()))].slice(0, MAX_SEARCH_TERMS);
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
        fuzzy: (term) => (term.length >= FUZZY_MIN_CHARS ? 0.15 : false),
        maxFuzzy: MAX_FUZZY_EDITS,
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
    for (const hit of this.search.search(searchTerms(text).join(' '))) {
      const entry = this.entries[hit.id as number]!;
      if (!keep(entry)) continue;
      out.push(entry);
      if (out.length === limit) break;
    }
    return out;
  }
}
