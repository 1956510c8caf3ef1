/**
 * @module TypeScript types of a tool's arguments and result data, generated from its JSON
 * Schemas: `$ref` / `$defs` (named aliases, so recursion terminates), unions, enums,
 * const, optional fields, index signatures; anything else is `any`. The same types feed
 * `catalog.tools.describe`'s signature and the declarations programs are checked against
 * (declarations.ts), so the two never disagree.
 */
import { MAX_TYPESCRIPT_CHARS } from '../config/defaults.ts';
import type { ToolEntry } from './types.ts';

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Deeper than this, a schema is written as `unknown` (a guard against pathological nesting). */
const MAX_DEPTH = 32;

const literal = (v: unknown) => JSON.stringify(v);
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** `text` percent-decoded, or as it is when it is not valid percent-encoding (a hostile `$ref`). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function aliasName(ref: string): string {
  const last = decoded(ref.split('/').pop() ?? 'Ref');
  const cleaned = last.replace(/[^\w$]/g, '_');
  return /^[A-Za-z_$]/.test(cleaned) ? cleaned : `T_${cleaned}`;
}

/**
 * How a schema is written: arguments are closed objects (an unknown argument is a mistake),
 * result data is open (a server may send more than its output schema names, as JSON Schema
 * allows); alias names carry a prefix where many tools share one file.
 */
interface Style {
  openObjects: boolean;
  aliasPrefix: string;
}

class Printer {
  /** This schema's `$ref`s and the alias each is written as. */
  private readonly refNames = new Map<string, string>();

  /**
   * Characters written so far, and the aliases (name -> body, undefined while being written,
   * for recursion), both shared by every Printer of one signature: past the cap, types are
   * `any`, and two schemas' `$defs/Item` get two names.
   */
  constructor(
    private readonly root: Schema,
    private readonly budget: { chars: number },
    private readonly style: Style,
    readonly aliases: Map<string, string | undefined>,
  ) {}

  /** Counts `text` against the budget. */
  private spend(text: string): string {
    this.budget.chars += text.length;
    return text;
  }

  private get spent(): boolean {
    return this.budget.chars > MAX_TYPESCRIPT_CHARS;
  }

  private resolve(ref: string): Schema | undefined {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = this.root;
    for (const part of ref.slice(2).split('/')) {
      const step = decoded(part.replace(/~1/g, '/').replace(/~0/g, '~'));
      node = node && typeof node === 'object' ? (node as Schema)[step] : undefined;
    }
    return node && typeof node === 'object' ? (node as Schema) : undefined;
  }

  private ref(ref: string, depth: number): string {
    const known = this.refNames.get(ref);
    if (known) return known;
    const target = this.resolve(ref);
    if (!target) return 'any';
    const base = this.style.aliasPrefix + aliasName(ref);
    let name = base;
    for (let n = 2; this.aliases.has(name); n++) name = `${base}_${n}`;
    this.refNames.set(ref, name);
    this.aliases.set(name, undefined);
    this.aliases.set(name, this.type(target, depth + 1));
    return name;
  }

  private object(schema: Schema, depth: number): string {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const fields: string[] = [];
    for (const [name, prop] of Object.entries(properties)) {
      if (this.spent) break;
      const doc =
        typeof prop?.description === 'string'
          ? `/** ${prop.description.replace(/\*\//g, '*\\/').split('\n')[0]} */ `
          : '';
      const label = this.spend(`${doc}${key(name)}${required.has(name) ? '' : '?'}: `);
      fields.push(`${label}${this.type(prop, depth + 1)}`);
    }
    const extra = schema.additionalProperties;
    const open =
      extra === true || (extra === undefined && (fields.length === 0 || this.style.openObjects));
    if (extra && typeof extra === 'object')
      fields.push(`[key: string]: ${this.type(extra as Schema, depth + 1)}`);
    else if (open) {
      if (fields.length === 0) return 'Record<string, any>';
      fields.push('[key: string]: any');
    }
    return `{ ${fields.join('; ')} }`;
  }

  /** The TypeScript type of `schema`. */
  type(schema: unknown, depth = 0): string {
    if (schema === true || schema === undefined) return 'any';
    if (schema === false) return 'never';
    if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH || this.spent) return 'any';
    const s = schema as Schema;
    if (typeof s.$ref === 'string') return this.ref(s.$ref, depth);
    if ('const' in s) return this.spend(literal(s.const));
    if (Array.isArray(s.enum))
      return s.enum.length
        ? this.many(s.enum, (v) => this.spend(literal(v) ?? 'any'), ' | ')
        : 'never';
    for (const combinator of ['anyOf', 'oneOf'] as const) {
      const options = s[combinator];
      if (Array.isArray(options) && options.length)
        return this.many(options, (o) => this.wrap(this.type(o, depth + 1)), ' | ');
    }
    if (Array.isArray(s.allOf) && s.allOf.length)
      return this.many(s.allOf, (o) => this.wrap(this.type(o, depth + 1)), ' & ');
    const types = Array.isArray(s.type)
      ? (s.type as string[])
      : typeof s.type === 'string'
        ? [s.type]
        : [];
    if (types.length === 0) {
      if (s.properties || s.additionalProperties) return this.object(s, depth);
      if (s.items) return `Array<${this.type(s.items, depth + 1)}>`;
      return 'any';
    }
    return this.many(types, (t) => this.wrap(this.primitive(String(t), s, depth)), ' | ');
  }

  private primitive(type: string, s: Schema, depth: number): string {
    this.spend(type);
    switch (type) {
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        if (Array.isArray(s.prefixItems))
          return `[${this.many(s.prefixItems, (i) => this.type(i, depth + 1), ', ')}]`;
        return `Array<${this.type(s.items, depth + 1)}>`;
      case 'object':
        return this.object(s, depth);
      default:
        return 'any';
    }
  }

  /** `items` written with `write` and joined by `separator`, until the budget runs out (then `any`). */
  private many(items: unknown[], write: (item: unknown) => string, separator: string): string {
    const parts: string[] = [];
    for (const item of items) {
      if (this.spent) return 'any';
      parts.push(write(item));
    }
    return parts.join(separator);
  }

  private wrap(type: string): string {
    return / [|&] /.test(type) && !type.startsWith('{') ? `(${type})` : type;
  }
}

/** A tool's types: its arguments, its result data, the aliases both need, its doc comment. */
export interface ToolTypes {
  args: string;
  data: string;
  /** `type Name = ...;` for each `$ref` target. */
  aliases: string[];
  /** `/** description *\/\n`, or "" without one. */
  doc: string;
  /** True when every argument is optional (the call may leave `args` out). */
  argsOptional: boolean;
}

/** A one-line doc comment for `text` (its first line), or "". */
export function docComment(text: string | undefined): string {
  return text ? `/** ${text.replace(/\*\//g, '*\\/').split('\n')[0]} */\n` : '';
}

/** The types of `entry`'s arguments and data; `aliasPrefix` keeps aliases of many tools apart. */
export function toolTypes(entry: ToolEntry, aliasPrefix = ''): ToolTypes {
  const budget = { chars: 0 };
  const named = new Map<string, string | undefined>();
  const input = new Printer(entry.inputSchema, budget, { openObjects: false, aliasPrefix }, named);
  const args = input.type(entry.inputSchema);
  const data = entry.outputSchema
    ? new Printer(entry.outputSchema, budget, { openObjects: true, aliasPrefix }, named).type(
        entry.outputSchema,
      )
    : 'any';
  const aliases = [...named].map(([name, body]) => `type ${name} = ${body ?? 'any'};`);
  const required = entry.inputSchema.required;
  const argsOptional = !Array.isArray(required) || required.length === 0;
  return { args, data, aliases, doc: docComment(entry.description), argsOptional };
}

/** The envelope every `tools.*` call resolves to: `data` and `meta` when `ok`, `error` when not. */
export const TOOL_ENVELOPE_DECLARATION =
  'interface ToolEnvelope<T> { ok: boolean; data?: T; meta?: { omitted: number }; error?: { code: string; message: string; retryable: boolean } }';

/** `declare function` for calling `entry` through `tools`, with the aliases its schemas need. */
export function toolSignature(entry: ToolEntry): string {
  const { args, data, aliases, doc } = toolTypes(entry);
  return [
    ...aliases,
    TOOL_ENVELOPE_DECLARATION,
    `${doc}declare function ${entry.namespace.replace(/\W/g, '_')}_${entry.name.replace(/\W/g, '_')}(args: ${args}): Promise<ToolEnvelope<${data}>>; // tools[${JSON.stringify(entry.qualifiedName)}](args)`,
  ].join('\n');
}
