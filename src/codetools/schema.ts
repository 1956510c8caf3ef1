/** @module The JSON Schema an MCP client sees for a code tool, derived from its params. */
import type { CodeToolParam, CodeToolParamType } from '../store/index.ts';

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

/** `{type: object, properties, required, additionalProperties: false}` for `params`. */
export function inputSchema(params: readonly CodeToolParam[]): DerivedSchema {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const p of params) {
    properties[p.name] = {
      ...TYPE_SCHEMAS[p.type],
      ...(p.description ? { description: p.description } : {}),
      ...(p.default_value !== null && p.default_value !== undefined
        ? { default: p.default_value }
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
