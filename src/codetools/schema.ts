/** @module The JSON Schema an MCP client sees for a code tool, derived from its params. */
import type { CodeToolParam, CodeToolParamType } from '../store/index.ts';
import { castValue } from './cast.ts';

const TYPE_SCHEMAS: Record<CodeToolParamType, Record<string, unknown>> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  decimal: { type: 'number' },
  // A date-time is accepted too; the format names the common case.
  date: { type: 'string', format: 'date' },
  boolean: { type: 'boolean' },
  array: { type: 'array' },
  object: { type: 'object' },
};

export interface DerivedSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
}

/**
 * A default as the schema's type says (a default saved as text, `"5"` for an integer, is
 * listed as 5); strings and dates stay as written (a date keeps its `YYYY-MM-DD`).
 */
function schemaDefault(type: CodeToolParamType, value: unknown): unknown {
  if (type === 'string' || type === 'date') return value;
  const cast = castValue(type, value);
  return cast.ok ? cast.value : value;
}

/** `{type: object, properties, required, additionalProperties: false}` for `params`. */
export function inputSchema(params: readonly CodeToolParam[]): DerivedSchema {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of params) {
    properties[p.name] = {
      ...TYPE_SCHEMAS[p.type],
      ...(p.description ? { description: p.description } : {}),
      ...(p.default_value !== null && p.default_value !== undefined
        ? { default: schemaDefault(p.type, p.default_value) }
        : {}),
    };
  }
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
