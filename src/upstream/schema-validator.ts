/**
 * @module Validators compiled from untrusted upstream JSON Schemas, bounded: RE2 patterns,
 * a node cap before ajv compiles anything, one cache (by schema text, capped), and a
 * validation that throws (a `$ref: "#"` loop overflows the stack) reported as a value.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { MAX_CACHED_VALIDATORS, MAX_VALIDATED_SCHEMA_NODES } from '../config/defaults.ts';
import { linearRegExp } from './linear-regexp.ts';
import { SCHEMA_LIMITS, schemaExcess } from './schema-bounds.ts';

/** ok, a mismatch (with ajv's first error), or a schema codemux cannot apply to these data. */
export type SchemaVerdict =
  | { ok: true }
  | { ok: false; kind: 'mismatch'; message: string }
  | { ok: false; kind: 'uncheckable'; message: string };

export class BoundedValidators {
  private readonly ajv: Ajv;
  /** JSON text of the schema -> compiled validator, or null when codemux does not check it. */
  private readonly cache = new Map<string, ValidateFunction | null>();
  /**
   * Each schema object's cache key (its JSON text), or null when it is too large to check. A
   * tool's schema is one object for as long as its tool list stands and nothing changes it, so
   * a call finds its validator without measuring and stringifying the schema again (about
   * 19 us per call for a 1 KB schema); the validators stay in the capped cache above.
   */
  private readonly keys = new WeakMap<object, string | null>();

  constructor(options: Options = {}) {
    this.ajv = new Ajv({
      strict: false,
      allErrors: false,
      validateFormats: false,
      ...options,
      code: { regExp: linearRegExp },
    });
  }

  /** The compiled validator for `schema`, or null when it is too large or ajv cannot read it. */
  private validator(schema: object): ValidateFunction | null {
    let text = this.keys.get(schema);
    if (text === undefined) {
      // Measured first: stringifying a 10,000-deep schema would itself overflow the stack.
      const excess = schemaExcess(schema, { ...SCHEMA_LIMITS, nodes: MAX_VALIDATED_SCHEMA_NODES });
      text = excess ? null : JSON.stringify(schema);
      this.keys.set(schema, text);
    }
    if (text === null) return null;
    const cached = this.cache.get(text);
    if (cached !== undefined) {
      this.cache.delete(text);
      this.cache.set(text, cached);
      return cached;
    }
    let validate: ValidateFunction | null = null;
    try {
      validate = this.ajv.compile(schema);
    } catch {
      // A schema ajv cannot read is the upstream's to enforce.
    } finally {
      // ajv keeps every compiled schema (and its $id) otherwise: a leak, and an $id clash between tools.
      this.ajv.removeSchema(schema);
    }
    this.cache.set(text, validate);
    if (this.cache.size > MAX_CACHED_VALIDATORS) this.cache.delete(this.cache.keys().next().value!);
    return validate;
  }

  /** Checks `data` (named `root` in messages) against `schema`; never throws. */
  check(schema: object, data: unknown, root: string): SchemaVerdict {
    const validate = this.validator(schema);
    if (!validate) return { ok: true };
    try {
      if (validate(data)) return { ok: true };
    } catch {
      return {
        ok: false,
        kind: 'uncheckable',
        message: `${root} cannot be checked against the schema: it refers to itself without end (or the data nest too deeply)`,
      };
    }
    const error = validate.errors?.[0];
    if (!error)
      return { ok: false, kind: 'mismatch', message: `${root} does not match the schema` };
    const where = error.instancePath ? `${root}${error.instancePath.replace(/\//g, '.')}` : root;
    // ajv's message for a property the schema does not allow leaves its name out.
    const { additionalProperty, unevaluatedProperty } = error.params as Record<string, unknown>;
    const extra = additionalProperty ?? unevaluatedProperty;
    const named = typeof extra === 'string' ? ` (${JSON.stringify(extra)})` : '';
    return {
      ok: false,
      kind: 'mismatch',
      message: `${where} ${error.message ?? 'is invalid'}${named}`,
    };
  }
}
