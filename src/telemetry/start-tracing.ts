/**
 * @module Turns traces on for a process that serves (`codemux serve`, `codemux stdio`): when
 * the config names an OTLP endpoint, the OpenTelemetry SDK is loaded (dynamic import: a
 * gateway without traces never loads it) and becomes `tracing()`; otherwise nothing happens.
 */
import type { ResolvedConfig } from '../config/index.ts';
import type { Logger } from '../util/logger.ts';
import { shownEndpoint } from './trace-endpoint.ts';
import { NO_TRACING, type Tracing, tracing, useTracing } from './tracing.ts';

/** Starts tracing as `config.traces` says; the Tracing in use (NO_TRACING when off). */
export async function startTracing(config: ResolvedConfig, logger: Logger): Promise<Tracing> {
  const traces = config.traces;
  if (!traces) return NO_TRACING;
  const { OtelTracing } = await import('./otel-tracing.ts');
  const started = new OtelTracing(traces, config.instanceId, logger);
  useTracing(started);
  logger.info(
    {
      endpoint: shownEndpoint(traces.endpoint),
      from: traces.endpointSource,
      sample_ratio: traces.sampleRatio,
      service: traces.serviceName,
    },
    'tracing on: spans go to the OTLP/HTTP endpoint',
  );
  return started;
}

/** Sends the last spans (at most `waitMs`) and turns tracing off. */
export async function stopTracing(waitMs: number): Promise<void> {
  const current = tracing();
  useTracing(NO_TRACING);
  await current.shutdown(waitMs);
}

/** A pino mixin: the active span's `trace_id` and `span_id` on each log line (none outside spans). */
export function traceLogFields(): Record<string, string> {
  return tracing().logFields();
}
