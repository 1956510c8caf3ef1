/**
 * @module The SDK client's output-schema checks (`jsonSchemaValidator`), bounded like the
 * input checks and compiled on first use instead of at every tools/list.
 */
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
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
