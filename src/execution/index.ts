/** @module The execution service and its result types. */

export { createRuntime, type Runtime } from './runtime.ts';
export { ExecutionService, type ExecutionServiceDeps } from './service.ts';
export type { Envelope, ErrorBody, ExecutionResult, ToolCallRecord } from './types.ts';
export { EXACTLY_ONE_SOURCE_MESSAGE, validateRequest } from './validate-request.ts';
