/**
 * @module TypeScript declarations of a tool's call signature, generated from its JSON
 * Schemas: `$ref` / `$defs` (named aliases, so recursion terminates), unions, enums,
 * const, optional fields, index signatures; anything else is `unknown`.
 */
import { MAX_TYPESCRIPT_CHARS } from '../config/defaults.ts';
import type { ToolEntry } from './types.ts';

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Deeper than this, a schema is written as `unknown` (a guard against pathological nesting). */
const MAX_DEPTH = 32;

const literal = (v: unknown) => JSON.stringify(v);
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

function aliasName(ref: string): string {
  const last = decodeURIComponent(ref.split('/').pop() ?? 'Ref');
  const cleaned = last.replace(/[^\w$]/g, '_');
  return /^[A-Za-z_$]/.test(cleaned) ? cleaned : `T_${cleaned}`;
}

class Printer {
  /** Aliases for `$ref` targets: name -> body (undefined while being written, for recursion). */
  readonly aliases = new Map<string, string | undefined>();

  /** Characters written so far, shared by every Printer of one signature: past the cap, types are `unknown`. */
  constructor(
    private readonly root: Schema,
    private readonly budget: { chars: number },
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
      const step = decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'));
      node = node && typeof node === 'object' ? (node as Schema)[step] : undefined;
    }
    return node && typeof node === 'object' ? (node as Schema) : undefined;
  }

  private ref(ref: string, depth: number): string {
    const name = aliasName(ref);
    if (this.aliases.has(name)) return name;
    const target = this.resolve(ref);
    if (!target) return 'unknown';
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
    if (extra && typeof extra === 'object')
      fields.push(`[key: string]: ${this.type(extra as Schema, depth + 1)}`);
    else if (extra === true || (fields.length === 0 && extra === undefined)) {
      if (fields.length === 0) return 'Record<string, unknown>';
      fields.push('[key: string]: unknown');
    }
    return `{ ${fields.join('; ')} }`;
  }

  /** The TypeScript type of `schema`. */
  type(schema: unknown, depth = 0): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH || this.spent) return 'unknown';
    const s = schema as Schema;
    if (typeof s.$ref === 'string') return this.ref(s.$ref, depth);
    if ('const' in s) return this.spend(literal(s.const));
    if (Array.isArray(s.enum))
      return s.enum.length
        ? this.many(s.enum, (v) => this.spend(literal(v) ?? 'unknown'), ' | ')
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
      return 'unknown';
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
        return 'unknown';
    }
  }

  /** `items` written with `write` and joined by `separator`, until the budget runs out (then `unknown`). */
  private many(items: unknown[], write: (item: unknown) => string, separator: string): string {
    const parts: string[] = [];
    for (const item of items) {
      if (this.spent) return 'unknown';
      parts.push(write(item));
    }
    return parts.join(separator);
  }

  private wrap(type: string): string {
    return / [|&] /.test(type) && !type.startsWith('{') ? `(${type})` : type;
  }
}

/** `declare function` for calling `entry` through `tools`, with the aliases its schemas need. */
export function toolSignature(entry: ToolEntry): string {
  const budget = { chars: 0 };
  const input = new Printer(entry.inputSchema, budget);
  const args = input.type(entry.inputSchema);
  const output = entry.outputSchema ? new Printer(entry.outputSchema, budget) : undefined;
  const data = output ? output.type(entry.outputSchema) : 'unknown';
  const aliases = [...input.aliases, ...(output?.aliases ?? [])].map(
    ([name, body]) => `type ${name} = ${body ?? 'unknown'};`,
  );
  const doc = entry.description
    ? `/** ${entry.description.replace(/\*\//g, '*\\/').split('\n')[0]} */\n`
    : '';
  return [
    ...aliases,
    'type ToolEnvelope<T> = { ok: true; data: T; meta: { omitted: number } } | { ok: false; error: { code: string; message: string; retryable: boolean } };',
    `${doc}declare function ${entry.namespace.replace(/\W/g, '_')}_${entry.name.replace(/\W/g, '_')}(args: ${args}): Promise<ToolEnvelope<${data}>>; // tools[${JSON.stringify(entry.qualifiedName)}](args)`,
  ].join('\n');
}
