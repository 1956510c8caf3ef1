/** @module Measures an untrusted JSON Schema without recursion and replaces one that is too big, too deep or too wide. */
import { MAX_SCHEMA_CHARS, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES } from '../config/defaults.ts';

export interface SchemaLimits {
  nodes: number;
  depth: number;
  chars: number;
}

export const SCHEMA_LIMITS: SchemaLimits = {
  nodes: MAX_SCHEMA_NODES,
  depth: MAX_SCHEMA_DEPTH,
  chars: MAX_SCHEMA_CHARS,
};

/** undefined when `schema` is within `limits`, else why not. Stops at the first excess. */
export function schemaExcess(
  schema: unknown,
  limits: SchemaLimits = SCHEMA_LIMITS,
): string | undefined {
  let nodes = 0;
  let chars = 0;
  const stack: Array<[unknown, number]> = [[schema, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++nodes > limits.nodes) return `more than ${limits.nodes} JSON values`;
    if (depth > limits.depth) return `nested deeper than ${limits.depth} levels`;
    if (typeof value === 'string') chars += value.length;
    else if (value !== null && typeof value === 'object') {
      if (Array.isArray(value)) for (const item of value) stack.push([item, depth + 1]);
      else
        for (const [key, item] of Object.entries(value)) {
          chars += key.length;
          stack.push([item, depth + 1]);
        }
    } else chars += 8;
    if (chars > limits.chars) return `larger than ${limits.chars} characters`;
  }
  return undefined;
}

/** `schema` itself when within bounds, else a permissive object schema that says why it replaced it. */
export function boundedSchema(schema: Record<string, unknown>): {
  schema: Record<string, unknown>;
  excess?: string;
} {
  const excess = schemaExcess(schema);
  if (!excess) return { schema };
  return {
    schema: {
      type: 'object',
      description: `codemux dropped this schema from the upstream: it is ${excess}. Arguments are not checked by codemux.`,
    },
    excess,
  };
}
