/**
 * @module The bounded way ended spans leave the process: a processor that hands a span to the
 * batch processor only while fewer than `maxQueued` wait for export (the others are dropped
 * and counted, never waited for), and an exporter that counts the spans a failed export lost.
 * Loaded only when traces are on (otel-tracing.ts).
 */
import type { Context } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type {
  ReadableSpan,
  Span,
  SpanExporter,
  SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** The W3C sampled flag: only sampled spans are exported. */
const SAMPLED = 1;

/** Spans between ending and export, and those that never got there. */
export class DeliveryCount {
  /** Handed to the batch processor, not yet taken by an export. */
  waiting = 0;
  /** In an export that has not answered yet. */
  sending = 0;
  /** Dropped from a full queue, or lost with an export that failed. */
  dropped = 0;
}

/** What the exporter tells of an export that failed, and of the first one that worked again. */
export interface DeliveryReport {
  failed(error: Error | undefined, spans: number): void;
  recovered(): void;
}

/** The exporter behind the batch processor: takes spans off `count.waiting`, counts lost ones. */
export class CountingExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly count: DeliveryCount,
    private readonly report: DeliveryReport,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.count.waiting -= spans.length;
    this.count.sending += spans.length;
    this.inner.export(spans, (result) => {
      this.count.sending -= spans.length;
      if (result.code === ExportResultCode.SUCCESS) {
        if (this.failing) this.report.recovered();
        this.failing = false;
      } else {
        this.count.dropped += spans.length;
        if (!this.failing) this.report.failed(result.error, spans.length);
        this.failing = true;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Hands ended spans on while fewer than `maxQueued` wait; drops (and counts) the others at once. */
export class BoundedProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly count: DeliveryCount,
    private readonly maxQueued: number,
  ) {}

  onStart(span: Span, parent: Context): void {
    this.inner.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & SAMPLED) === 0) return;
    if (this.count.waiting >= this.maxQueued) {
      this.count.dropped++;
      return;
    }
    this.count.waiting++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
