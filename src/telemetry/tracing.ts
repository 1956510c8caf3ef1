/**
 * @module The traces contract every instrumentation point calls (DESIGN "Observability"): a
 * span per tools/call of a codemux tool, its children (upstream calls, the type check,
 * approval waits), and the context they carry. Off, `tracing()` is NO_TRACING: its methods
 * return the one no-op span and nothing of OpenTelemetry is loaded (otel-tracing.ts is
 * imported only by startTracing, when an endpoint is configured).
 */

/** An attribute's value: span attributes are strings and numbers here, never program data. */
export type SpanValue = string | number;

/** One span: set attributes, then end it once (idempotent), failed with an `error.type` or not. */
export interface TraceSpan {
  /** False for the no-op span: nothing is recorded, nothing is carried. */
  readonly recording: boolean;
  set(key: string, value: SpanValue): void;
  /** Ends the span; `errorType` (OpenTelemetry `error.type`) sets its status to ERROR. */
  end(errorType?: string): void;
  /** This span's W3C context as MCP `_meta` keys (`traceparent`, `tracestate`); {} when off. */
  meta(): Record<string, string>;
}

/** What a SERVER span of one tools/call is made of: its target and the request's facts. */
export interface ToolCallFacts {
  /** The codemux tool called (code_execution, execute, a code tool), or undefined when unknown. */
  tool: string | undefined;
  sessionId?: string;
  protocolVersion?: string;
  requestId?: string | number;
  /** The caller's W3C context: `params._meta` first, else the HTTP headers. */
  traceparent?: string;
  tracestate?: string;
}

/** What a CLIENT span of one upstream call is made of. */
export interface UpstreamCallFacts {
  server: string;
  tool: string;
  /** The MCP version negotiated with the server. */
  protocolVersion?: string;
  /** How the server is reached: stdio (`pipe`) or HTTP (`tcp`). */
  transport: 'pipe' | 'tcp';
}

export interface Tracing {
  /** True when spans are recorded and exported. */
  readonly enabled: boolean;
  /** The SERVER span of one tools/call, continuing the caller's trace when it sent one. */
  toolCall(facts: ToolCallFacts): TraceSpan;
  /** The CLIENT span of one upstream call under `parent` (the no-op span without one). */
  upstreamCall(parent: TraceSpan | undefined, facts: UpstreamCallFacts): TraceSpan;
  /** An INTERNAL child of `parent` (the type check, an approval wait). */
  child(parent: TraceSpan | undefined, name: string): TraceSpan;
  /** Runs `fn` with `span` as the active span: its log lines and HTTP requests carry it. */
  within<T>(span: TraceSpan, fn: () => T): T;
  /** Writes the active span's `traceparent` (and `tracestate`) into outgoing HTTP `headers`. */
  inject(headers: Headers): void;
  /**
   * The active span's `trace_id` and `span_id` for a log line ({} outside a span): a new object
   * each time, as pino merges the line's own fields into it.
   */
  logFields(): Record<string, string>;
  /** Spans ended but never delivered: dropped from a full queue or lost with a failed export. */
  droppedSpans(): number;
  /** Sends the spans still queued, waiting at most `waitMs`, then stops exporting. */
  shutdown(waitMs: number): Promise<void>;
}

const NO_META: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** The span of everything when tracing is off (and of a call made outside any span). */
export const NO_SPAN: TraceSpan = Object.freeze({
  recording: false,
  set: () => {},
  end: () => {},
  meta: () => NO_META,
});

/** Tracing off: every span is NO_SPAN, and nothing is sent. */
export const NO_TRACING: Tracing = Object.freeze({
  enabled: false,
  toolCall: () => NO_SPAN,
  upstreamCall: () => NO_SPAN,
  child: () => NO_SPAN,
  within: <T>(_span: TraceSpan, fn: () => T) => fn(),
  inject: () => {},
  logFields: () => ({}),
  droppedSpans: () => 0,
  shutdown: async () => {},
});

let current: Tracing = NO_TRACING;

/** The process's tracing: NO_TRACING until startTracing turned it on. */
export function tracing(): Tracing {
  return current;
}

/** Makes `next` the process's tracing (startTracing; a test's own instance). */
export function useTracing(next: Tracing): void {
  current = next;
}
