/**
 * @module Tracing with the official OpenTelemetry SDK: spans exported over OTLP/HTTP in
 * batches from a bounded queue (trace-delivery.ts), sampled by ratio unless the caller's
 * context decided, W3C context read from and written to MCP `_meta` and HTTP headers. Imported
 * only by startTracing, when an endpoint is configured.
 */
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import {
  TRACE_BATCH_SPANS,
  TRACE_EXPORT_DELAY_MS,
  TRACE_EXPORT_TIMEOUT_MS,
  TRACE_QUEUE_SPANS,
} from '../config/defaults.ts';
import type { TracesConfig } from '../config/index.ts';
import type { Logger } from '../util/logger.ts';
import { BoundedProcessor, CountingExporter, DeliveryCount } from './trace-delivery.ts';
import { shownEndpoint } from './trace-endpoint.ts';
import { ATTR, EXECUTE_TOOL_OPERATION, TOOLS_CALL } from './trace-names.ts';
import {
  NO_SPAN,
  type SpanValue,
  type ToolCallFacts,
  type TraceSpan,
  type Tracing,
  type UpstreamCallFacts,
} from './tracing.ts';

/** A recorded span, with the context its children and peers continue. */
class OtelSpan implements TraceSpan {
  readonly recording = true;
  private ended = false;
  /** Copied onto its children, so each span of an execution can be found by its id. */
  executionId?: string;

  constructor(
    readonly span: Span,
    readonly context: Context,
  ) {}

  set(key: string, value: SpanValue): void {
    if (key === ATTR.executionId) this.executionId = String(value);
    this.span.setAttribute(key, value);
  }

  end(errorType?: string): void {
    if (this.ended) return;
    this.ended = true;
    if (errorType) {
      this.span.setAttribute(ATTR.errorType, errorType);
      // The conventions' status description is the error's message; codemux's may echo
      // arguments or upstream text, so the span says only its low-cardinality type.
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    this.span.end();
  }

  meta(): Record<string, string> {
    const carrier: Record<string, string> = {};
    propagation.inject(this.context, carrier);
    return carrier;
  }
}

/** Header access for propagation into a fetch `Headers`. */
const HEADERS_SETTER = {
  set: (headers: Headers, key: string, value: string) => headers.set(key, value),
};

export class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly provider: NodeTracerProvider;
  private readonly tracer: Tracer;
  private readonly count = new DeliveryCount();

  constructor(
    private readonly config: TracesConfig,
    instanceId: string,
    private readonly logger: Logger,
  ) {
    const where = shownEndpoint(config.endpoint);
    const exporter = new CountingExporter(
      new OTLPTraceExporter({ url: config.endpoint, timeoutMillis: TRACE_EXPORT_TIMEOUT_MS }),
      this.count,
      {
        failed: (error, spans) =>
          logger.warn(
            { err: error?.message, endpoint: where, spans },
            `exporting spans to ${where} failed; spans are dropped (and counted) until it answers`,
          ),
        recovered: () =>
          logger.info({ endpoint: where }, `exporting spans to ${where} works again`),
      },
    );
    const batch = new BatchSpanProcessor(exporter, {
      maxQueueSize: TRACE_QUEUE_SPANS,
      maxExportBatchSize: TRACE_BATCH_SPANS,
      scheduledDelayMillis: TRACE_EXPORT_DELAY_MS,
      // The exporter's own timeout ends an export first: its spans are counted as lost.
      exportTimeoutMillis: TRACE_EXPORT_TIMEOUT_MS * 2,
    });
    this.provider = new NodeTracerProvider({
      resource: defaultResource().merge(
        resourceFromAttributes({
          [ATTR.serviceName]: config.serviceName,
          [ATTR.serviceInstanceId]: instanceId,
        }),
      ),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
      spanProcessors: [new BoundedProcessor(batch, this.count, TRACE_QUEUE_SPANS)],
    });
    // The async-hooks context manager and the W3C propagator, for this process.
    this.provider.register();
    this.tracer = this.provider.getTracer('codemux');
  }

  toolCall(facts: ToolCallFacts): TraceSpan {
    const parent = facts.traceparent
      ? propagation.extract(ROOT_CONTEXT, {
          traceparent: facts.traceparent,
          ...(facts.tracestate ? { tracestate: facts.tracestate } : {}),
        })
      : ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      facts.tool ? `${TOOLS_CALL} ${facts.tool}` : TOOLS_CALL,
      { kind: SpanKind.SERVER, attributes: toolCallAttributes(facts) },
      parent,
    );
    return new OtelSpan(span, trace.setSpan(parent, span));
  }

  upstreamCall(parent: TraceSpan | undefined, facts: UpstreamCallFacts): TraceSpan {
    if (!(parent instanceof OtelSpan)) return NO_SPAN;
    const span = this.tracer.startSpan(
      `${TOOLS_CALL} ${facts.tool}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR.methodName]: TOOLS_CALL,
          [ATTR.toolName]: facts.tool,
          [ATTR.operationName]: EXECUTE_TOOL_OPERATION,
          [ATTR.server]: facts.server,
          [ATTR.networkTransport]: facts.transport,
          ...(facts.protocolVersion ? { [ATTR.protocolVersion]: facts.protocolVersion } : {}),
          ...(parent.executionId ? { [ATTR.executionId]: parent.executionId } : {}),
        },
      },
      parent.context,
    );
    return this.childOf(parent, span);
  }

  child(parent: TraceSpan | undefined, name: string): TraceSpan {
    if (!(parent instanceof OtelSpan)) return NO_SPAN;
    const span = this.tracer.startSpan(
      name,
      {
        kind: SpanKind.INTERNAL,
        attributes: parent.executionId ? { [ATTR.executionId]: parent.executionId } : {},
      },
      parent.context,
    );
    return this.childOf(parent, span);
  }

  private childOf(parent: OtelSpan, span: Span): OtelSpan {
    const child = new OtelSpan(span, trace.setSpan(parent.context, span));
    child.executionId = parent.executionId;
    return child;
  }

  within<T>(span: TraceSpan, fn: () => T): T {
    return span instanceof OtelSpan ? context.with(span.context, fn) : fn();
  }

  inject(headers: Headers): void {
    propagation.inject(context.active(), headers, HEADERS_SETTER);
  }

  logFields(): Record<string, string> {
    const span = trace.getSpan(context.active());
    if (!span) return {};
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  }

  droppedSpans(): number {
    return this.count.dropped;
  }

  async shutdown(waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([this.provider.shutdown().catch(() => {}), late]);
    clearTimeout(timer);
    // What the flush could not send in time, or is still sending, is lost with the process.
    this.count.dropped += this.count.waiting + this.count.sending;
    this.count.waiting = 0;
    this.count.sending = 0;
    if (this.count.dropped > 0) {
      const where = shownEndpoint(this.config.endpoint);
      this.logger.warn(
        { dropped_spans: this.count.dropped, endpoint: where },
        `${this.count.dropped} spans were never delivered to ${where}`,
      );
    }
  }
}

/** A SERVER span's attributes: the conventions' own, then what the request told. */
function toolCallAttributes(facts: ToolCallFacts): Record<string, SpanValue> {
  const attributes: Record<string, SpanValue> = {
    [ATTR.methodName]: TOOLS_CALL,
    [ATTR.operationName]: EXECUTE_TOOL_OPERATION,
  };
  if (facts.tool) attributes[ATTR.toolName] = facts.tool;
  if (facts.sessionId) attributes[ATTR.sessionId] = facts.sessionId;
  if (facts.protocolVersion) attributes[ATTR.protocolVersion] = facts.protocolVersion;
  if (facts.requestId !== undefined) attributes[ATTR.requestId] = String(facts.requestId);
  return attributes;
}
