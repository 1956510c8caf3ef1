import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_BATCH_SPANS, TRACE_FLUSH_MS, TRACE_QUEUE_SPANS } from '../config/defaults.ts';
import { silentLogger } from '../util/logger.ts';
import { OtelTracing } from './otel-tracing.ts';
import { NO_SPAN } from './tracing.ts';

/** A collector that takes requests and never answers them. */
const held: http.ServerResponse[] = [];
const blackhole = http.createServer((_req, res) => held.push(res));
let tracing: OtelTracing;

beforeAll(async () => {
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const { port } = blackhole.address() as AddressInfo;
  tracing = new OtelTracing(
    {
      endpoint: `http://127.0.0.1:${port}/v1/traces`,
      endpointSource: 'test',
      sampleRatio: 1,
      serviceName: 'codemux',
    },
    'i-test',
    silentLogger(),
  );
});

afterAll(async () => {
  blackhole.closeAllConnections();
  await new Promise((resolve) => blackhole.close(resolve));
});

describe('OtelTracing', () => {
  it("continues a caller's W3C context and hands its own on in _meta form", () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const span = tracing.toolCall({ tool: 'code_execution', traceparent, tracestate: 'k=v' });
    const meta = span.meta();
    expect(meta.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(meta.traceparent).not.toContain('b7ad6b7169203331');
    expect(meta.tracestate).toBe('k=v');
    const call = tracing.upstreamCall(span, { server: 's', tool: 't', transport: 'pipe' });
    expect(call.meta().traceparent?.slice(0, 35)).toBe(meta.traceparent?.slice(0, 35));
    call.end();
    span.end();
  });

  it('starts a new trace for a malformed traceparent, and none under no span', () => {
    const span = tracing.toolCall({ tool: undefined, traceparent: 'not-a-traceparent' });
    expect(span.meta().traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    span.end();
    expect(tracing.upstreamCall(undefined, { server: 's', tool: 't', transport: 'tcp' })).toBe(
      NO_SPAN,
    );
    expect(tracing.child(NO_SPAN, 'typecheck')).toBe(NO_SPAN);
  });

  it('gives log lines the active span ids, and nothing outside a span', () => {
    const span = tracing.toolCall({ tool: 'execute' });
    const [, traceId, spanId] = span.meta().traceparent!.split('-');
    expect(tracing.within(span, () => tracing.logFields())).toEqual({
      trace_id: traceId,
      span_id: spanId,
    });
    expect(tracing.logFields()).toEqual({});
    span.end();
  });

  it('drops and counts the spans past its queue while the collector never answers, and stops all the same', async () => {
    const before = tracing.droppedSpans();
    const total = TRACE_QUEUE_SPANS + TRACE_BATCH_SPANS + 100;
    // The first full batch is taken by an export that hangs; the queue then fills.
    for (let i = 0; i < total; i++) tracing.toolCall({ tool: 'code_execution' }).end();
    expect(tracing.droppedSpans() - before).toBeGreaterThanOrEqual(100);
    await tracing.shutdown(TRACE_FLUSH_MS);
    // Everything never delivered is counted once the process stops exporting.
    expect(tracing.droppedSpans()).toBeGreaterThanOrEqual(total);
  });
});
