/**
 * @module The TypeScript declarations a program is type-checked against: what one caller
 * may use (`input`, `call_tool`, `call_tools`, `tools`, `catalog`, `console`), with each
 * tool's argument and data types written by the same generator as `catalog`'s signatures
 * (typescript.ts). Server and tool names are string-literal unions, so a misspelled one is
 * an error; a name that is only known at run time (a `string`) is let through.
 */
import type { ToolEntry } from './types.ts';
import { TOOL_ENVELOPE_DECLARATION, toolTypes } from './typescript.ts';

/** Which globals the program has: code_execution's, or execute's (no call_tool, no input). */
export type DeclarationDialect = 'code_execution' | 'execute';

/** What a program is checked against, and the names its diagnostics are told in terms of. */
export interface ScopeDeclarations {
  /** The declarations file. */
  text: string;
  /** Tools per server the caller may use; null for a server whose tools are not known yet. */
  servers: Record<string, string[] | null>;
  /** Tools per server that tool pinning holds (left out of the declarations). */
  held: Record<string, string[]>;
}

/** What goes in: the caller's usable tools, and its usable servers whose tools are not known yet. */
export interface ScopeInput {
  entries: readonly ToolEntry[];
  unknownServers: readonly string[];
  dialect: DeclarationDialect;
}

const literal = (s: string) => JSON.stringify(s);

const SHARED = `interface ToolResult { content: Array<{ type: string; text?: string; [key: string]: any }>; structuredContent?: any; isError?: boolean; [key: string]: any }
${TOOL_ENVELOPE_DECLARATION}
interface CatalogEnvelope<T> { ok: boolean; data?: T; error?: { code: string; message: string; retryable: boolean } }
interface Page<T> { items: T[]; total: number; limit: number; offset: number; hasMore: boolean; nextOffset?: number }
interface ToolSummary { namespace: string; name: string; qualifiedName: string; description: string; annotations?: Record<string, any>; held?: boolean }
interface Paging { limit?: number; offset?: number }
declare var catalog: {
  readonly namespaces: { list(params?: Paging): Promise<CatalogEnvelope<Page<{ namespace: string; toolCount: number }>>> };
  readonly tools: {
    search(params: { query: string; namespace?: string; limit?: number }): Promise<CatalogEnvelope<{ items: ToolSummary[] }>>;
    list(params: { namespace: string } & Paging): Promise<CatalogEnvelope<Page<ToolSummary>>>;
    describe(params: { namespace: string; name: string }): Promise<CatalogEnvelope<ToolSummary & { inputSchema: any; outputSchema: any; typescript: string }>>;
  };
  readonly toolkits: {
    list(params?: Paging): Promise<CatalogEnvelope<Page<{ name: string; description: string; toolCount: number }>>>;
    get(params: { name: string }): Promise<CatalogEnvelope<{ name: string; description: string; content: string }>>;
  };
};
declare var console: { log(...data: any[]): void; info(...data: any[]): void; warn(...data: any[]): void; error(...data: any[]): void; debug(...data: any[]): void };
type ServerName = keyof ToolArgs;
/** The iterator helpers the engine has (TypeScript's own esnext.iterator library costs every check about 20 ms). */
interface IteratorObject<T, TReturn, TNext> {
  map<U>(callbackfn: (value: T, index: number) => U): IteratorObject<U, undefined, unknown>;
  filter(predicate: (value: T, index: number) => unknown): IteratorObject<T, undefined, unknown>;
  take(limit: number): IteratorObject<T, undefined, unknown>;
  drop(count: number): IteratorObject<T, undefined, unknown>;
  flatMap<U>(callback: (value: T, index: number) => Iterator<U> | Iterable<U>): IteratorObject<U, undefined, unknown>;
  reduce<U>(callbackfn: (accumulator: U, value: T, index: number) => U, initialValue?: U): U;
  toArray(): T[];
  forEach(callbackfn: (value: T, index: number) => void): void;
  some(predicate: (value: T, index: number) => unknown): boolean;
  every(predicate: (value: T, index: number) => unknown): boolean;
  find(predicate: (value: T, index: number) => unknown): T | undefined;
}
`;

/**
 * call_tool and call_tools: a literal name must be one the caller may use (a `string` known
 * only at run time passes), and a known tool's arguments are checked. call_tools infers its
 * requests as literal types and bounds them by their own checked form (`R extends Checked<R>`),
 * so each element is judged like one call_tool. A tool's name is `keyof ToolArgs[S]` alone
 * (its keys are string literals already): `& string` made every check distribute an
 * intersection over each server's tool names (about 8% of a check at 300 tools).
 */
const SYNC_DIALECT = `/** call_tool's envelope: \`result\` when ok; \`error\` when not (with the \`result\` for a TOOL_ERROR). */
interface CallToolEnvelope { ok: boolean; result?: ToolResult; error?: { code: string; message: string } }
type ToolName<S> = S extends ServerName ? keyof ToolArgs[S] : string;
type ArgsOf<S, T> = S extends ServerName ? (T extends keyof ToolArgs[S] ? ToolArgs[S][T] : Record<string, any>) : Record<string, any>;
type KnownServer<S> = S extends ServerName ? S : string extends S ? S : ServerName;
type KnownTool<S, T> = T extends ToolName<S> ? T : string extends T ? T : ToolName<S>;
interface ToolRequest { server: string; tool: string; args?: Record<string, any> }
type NoExtra<A, K> = { [P in Exclude<keyof A, K>]: never };
type CheckedArgs<R, S, T> = R extends { args: infer A } ? ArgsOf<S, T> & NoExtra<A, keyof ArgsOf<S, T>> : ArgsOf<S, T>;
type CheckedRequest<R> = R extends { server: infer S; tool: infer T }
  ? ({} extends ArgsOf<S, T> ? { server: KnownServer<S>; tool: KnownTool<S, T>; args?: CheckedArgs<R, S, T> } : { server: KnownServer<S>; tool: KnownTool<S, T>; args: CheckedArgs<R, S, T> })
  : ToolRequest;
type CheckedRequests<R> = { [K in keyof R]: CheckedRequest<R[K]> };
declare function call_tool<S extends string, T extends string>(server: KnownServer<S>, tool: KnownTool<S, T>, ...args: {} extends ArgsOf<S, T> ? [args?: ArgsOf<S, T>] : [args: ArgsOf<S, T>]): CallToolEnvelope;
declare function call_tools<const R extends readonly ToolRequest[] & CheckedRequests<R>>(requests: R & {}, options?: { max_parallel?: number }): CallToolEnvelope[];
/** The program's \`input\`. */
declare var input: any;
`;

/**
 * Past this many characters of tool types, the remaining tools are typed loosely (any
 * arguments, any data): a catalog of thousands of large schemas must not make every check
 * run out of the worker's memory.
 */
export const MAX_DECLARATION_CHARS = 2_000_000;

/** A tool's types once the declarations are full: anything goes. */
const LOOSE = {
  args: 'Record<string, any>',
  data: 'any',
  aliases: [],
  doc: '',
  argsOptional: true,
};

/** An identifier-safe prefix for a tool's `$ref` aliases, unique within the file. */
function aliasPrefix(entry: ToolEntry, index: number): string {
  return `${`${entry.namespace}_${entry.name}`.replace(/[^\w$]/g, '_')}_${index}_`;
}

/** The declarations for one caller's scope. */
export function scopeDeclarations(input: ScopeInput): ScopeDeclarations {
  // Without a prototype: a server named `constructor` or `__proto__` is only a name.
  const servers: Record<string, string[] | null> = Object.create(null);
  const held: Record<string, string[]> = Object.create(null);
  const byServer = new Map<string, ToolEntry[]>();
  for (const entry of input.entries) {
    const tools = servers[entry.namespace] ?? [];
    servers[entry.namespace] = tools;
    if (entry.held) {
      held[entry.namespace] = [...(held[entry.namespace] ?? []), entry.name];
      continue;
    }
    tools.push(entry.name);
    const list = byServer.get(entry.namespace) ?? [];
    if (list.length === 0) byServer.set(entry.namespace, list);
    list.push(entry);
  }
  for (const name of input.unknownServers) servers[name] ??= null;

  const args: string[] = [];
  const data: string[] = [];
  const members: string[] = [];
  const qualified: string[] = [];
  const aliases: string[] = [];
  let index = 0;
  let written = 0;
  for (const [server, tools] of Object.entries(servers)) {
    const s = literal(server);
    if (tools === null) {
      args.push(`  ${s}: { [tool: string]: Record<string, any> };`);
      data.push(`  ${s}: { [tool: string]: any };`);
      members.push(
        `  /** The tools of ${server} are not known yet (the server is connecting or failed to connect). */\n  readonly ${s}: { readonly [tool: string]: (args?: Record<string, any>) => Promise<ToolEnvelope<any>> };`,
      );
      continue;
    }
    const argFields: string[] = [];
    const dataFields: string[] = [];
    const methods: string[] = [];
    for (const entry of byServer.get(server) ?? []) {
      const types =
        written > MAX_DECLARATION_CHARS ? LOOSE : toolTypes(entry, aliasPrefix(entry, index++));
      written += types.args.length + types.data.length + types.aliases.join('').length;
      const t = literal(entry.name);
      aliases.push(...types.aliases);
      argFields.push(`    ${types.doc.replace(/\n$/, '\n    ')}${t}: ${types.args};`);
      dataFields.push(`    ${t}: ${types.data};`);
      const optional = types.argsOptional ? '?' : '';
      methods.push(
        `    ${types.doc.replace(/\n$/, '\n    ')}${t}(args${optional}: ToolArgs[${s}][${t}]): Promise<ToolEnvelope<ToolData[${s}][${t}]>>;`,
      );
      qualified.push(`  readonly ${literal(entry.qualifiedName)}: Tools[${s}][${t}];`);
    }
    args.push(`  ${s}: {\n${argFields.join('\n')}\n  };`);
    data.push(`  ${s}: {\n${dataFields.join('\n')}\n  };`);
    members.push(`  readonly ${s}: {\n${methods.join('\n')}\n  };`);
  }
  const text = [
    '// What this program may use (codemux; the ES2023 library, no DOM).',
    SHARED,
    `/** Each tool's arguments, by server and tool. */\ninterface ToolArgs {\n${args.join('\n')}\n}`,
    `/** Each tool's result data (from its output schema; any without one). */\ninterface ToolData {\n${data.join('\n')}\n}`,
    `/** tools.<server>.<tool>(args) and tools["server.tool"](args). */\ninterface Tools {\n${[...members, ...qualified].join('\n')}\n}`,
    'declare var tools: Tools;',
    input.dialect === 'code_execution' ? SYNC_DIALECT : '',
    ...aliases,
  ].join('\n');
  return { text, servers, held };
}
