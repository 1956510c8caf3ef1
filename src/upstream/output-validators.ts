/**
 * @module Output-schema checks of tool results (and the SDK client's `jsonSchemaValidator`),
 * bounded like the input checks and compiled on first use instead of at every tools/list.
 */
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/client';
import { BoundedValidators } from './schema-validator.ts';

const validators = new BoundedValidators();

export const boundedOutputValidators: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (input) => {
      const verdict = validators.check(schema, input, 'structuredContent');
      return verdict.ok
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: verdict.message };
    };
  },
};

/**
 * Checks a tool's result against its listed output schema as the 1.x SDK client did (same
 * messages): structuredContent is required unless the result is an error; throws on a mismatch.
 */
export function checkStructuredContent(
  tool: string,
  schema: Record<string, unknown> | undefined,
  result: { structuredContent?: unknown; isError?: boolean },
): void {
  if (!schema) return;
  if (!result.structuredContent && !result.isError) {
    throw new Error(`Tool ${tool} has an output schema but did not return structured content`);
  }
  if (!result.structuredContent) return;
  const verdict = validators.check(schema, result.structuredContent, 'structuredContent');
  if (!verdict.ok) {
    throw new Error(
      `Structured content does not match the tool's output schema: ${verdict.message}`,
    );
  }
}
