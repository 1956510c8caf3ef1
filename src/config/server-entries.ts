/**
 * @module The `mcpServers` of a config document as the user wrote it, in either shape (an
 * array of entries with `name`, or an object keyed by name): finding an entry and the
 * JSON paths that change it in place, so an edit keeps the file's shape and its other keys.
 */
import { createHash } from 'node:crypto';
import { findNodeAtLocation, type JSONPath, parseTree } from 'jsonc-parser';

export type RawEntry = Record<string, unknown>;

/** One server as the file has it: its entry (with `name`) and where it sits. */
export interface Located {
  entry: RawEntry;
  path: JSONPath;
  revision: string;
}

const isObject = (value: unknown): value is RawEntry =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A short digest of an entry: it changes whenever the entry does (the dashboard's edit base). */
export function revisionOf(entry: RawEntry): string {
  return createHash('sha256').update(JSON.stringify(entry)).digest('hex').slice(0, 16);
}

/** Every entry of `doc.mcpServers`, each with its name (the key in the object shape). */
export function serverEntries(doc: unknown): Located[] {
  const servers = isObject(doc) ? doc.mcpServers : undefined;
  const out: Located[] = [];
  if (Array.isArray(servers)) {
    servers.forEach((entry, i) => {
      if (isObject(entry)) out.push(located(entry, ['mcpServers', i]));
    });
  } else if (isObject(servers)) {
    for (const [name, entry] of Object.entries(servers)) {
      if (isObject(entry)) out.push(located({ name, ...entry }, ['mcpServers', name]));
    }
  }
  return out;
}

function located(entry: RawEntry, path: JSONPath): Located {
  return { entry, path, revision: revisionOf(entry) };
}

export function findServer(doc: unknown, name: string): Located | undefined {
  return serverEntries(doc).find((s) => s.entry.name === name);
}

/** Where a new entry goes, and the value to write there (the object shape keys it by name). */
export function insertion(
  doc: unknown,
  entry: RawEntry,
): { path: JSONPath; value: unknown; arrayInsertion: boolean } {
  const servers = isObject(doc) ? doc.mcpServers : undefined;
  if (isObject(servers)) {
    const { name, ...rest } = entry;
    return { path: ['mcpServers', String(name)], value: rest, arrayInsertion: false };
  }
  if (Array.isArray(servers)) {
    return { path: ['mcpServers', servers.length], value: entry, arrayInsertion: true };
  }
  return { path: ['mcpServers'], value: [entry], arrayInsertion: false };
}

/** True when the object shape of `mcpServers` in `text` has the key `name` more than once. */
export function namedTwice(text: string, name: string): boolean {
  const tree = parseTree(text);
  const servers = tree && findNodeAtLocation(tree, ['mcpServers']);
  if (servers?.type !== 'object') return false;
  return (servers.children ?? []).filter((p) => p.children?.[0]?.value === name).length > 1;
}
