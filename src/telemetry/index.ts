/** @module Telemetry: traces (tracing.ts, the contract; otel-tracing.ts, loaded only when on). */
export { startTracing, stopTracing, traceLogFields } from './start-tracing.ts';
export { shownEndpoint } from './trace-endpoint.ts';
export {
  APPROVAL_SPAN,
  ATTR,
  TOOL_ERROR,
  TOOLS_CALL,
  TYPECHECK_SPAN,
} from './trace-names.ts';
export {
  NO_SPAN,
  NO_TRACING,
  type SpanValue,
  type ToolCallFacts,
  type TraceSpan,
  type Tracing,
  tracing,
  type UpstreamCallFacts,
  useTracing,
} from './tracing.ts';
