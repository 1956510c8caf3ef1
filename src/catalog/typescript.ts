/**
 * @module TypeScript declarations of a tool's call signature, generated from its JSON
 * Schemas: `$ref` / `$defs` (named aliases, so recursion terminates), unions, enums,
 * const, optional fields, index signatures; anything else is `unknown`.
 */
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

  constructor(private readonly root: Schema) {}

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
    const fields = Object.entries(properties).map(([name, prop]) => {
      const doc =
        typeof prop?.description === 'string'
          ? `/** ${prop.description.replace(/\*\//g, '*\\/').split('\n')[0]} */ `
          : '';
      return `${doc}${key(name)}${required.has(name) ? '' : '?'}: ${this.type(prop, depth + 1)}`;
    });
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
    if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return 'unknown';
    const s = schema as Schema;
    if (typeof s.$ref === 'string') return this.ref(s.$ref, depth);
    if ('const' in s) return literal(s.const);
    if (Array.isArray(s.enum)) return s.enum.length ? s.enum.map(literal).join(' | ') : 'never';
    for (const combinator of ['anyOf', 'oneOf'] as const) {
      const options = s[combinator];
      if (Array.isArray(options) && options.length)
        return options.map((o) => this.wrap(this.type(o, depth + 1))).join(' | ');
    }
    if (Array.isArray(s.allOf) && s.allOf.length)
      return s.allOf.map((o) => this.wrap(this.type(o, depth + 1))).join(' & ');
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
    return types.map((t) => this.wrap(this.primitive(t, s, depth))).join(' | ');
  }

  private primitive(type: string, s: Schema, depth: number): string {
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
          return `[${(s.prefixItems as unknown[]).map((i) => this.type(i, depth + 1)).join(', ')}]`;
        return `Array<${this.type(s.items, depth + 1)}>`;
      case 'object':
        return this.object(s, depth);
      default:
        return 'unknown';
    }
  }

  private wrap(type: string): string {
    return / [|&] /.test(type) && !type.startsWith('{') ? `(${type})` : type;
  }
}

/** `declare function` for calling `entry` through `tools`, with the aliases its schemas need. */
export function toolSignature(entry: ToolEntry): string {
  const input = new Printer(entry.inputSchema);
  const args = input.type(entry.inputSchema);
  const output = entry.outputSchema ? new Printer(entry.outputSchema) : undefined;
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
