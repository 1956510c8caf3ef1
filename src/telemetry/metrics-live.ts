/**
 * @module The metrics with prom-client, on a registry of their own (never the global one):
 * counters and histograms fed by the instrumentation points, gauges read from the runtime at
 * each scrape. Loaded only by startMetrics() (metrics.ts), so it costs nothing when off.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ExecutionEnd, Metrics, MetricsSources } from './metrics.ts';
import {
  channelLabel,
  decisionLabel,
  dialectLabel,
  OTHER,
  statusLabel,
  surfaceLabel,
  UPSTREAM_STATES,
  WORKER_STATES,
} from './metrics-labels.ts';
import { tracing } from './tracing.ts';

/** An execution: from a few milliseconds to code_execution_timeout_ms's 600 s at most. */
const EXECUTION_BUCKETS_SECONDS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];
/** One upstream call (an approval's wait included). */
const TOOL_CALL_BUCKETS_SECONDS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];
/** One type check in the checker's worker. */
const TYPECHECK_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const seconds = (ms: number) => ms / 1000;

export class LiveMetrics implements Metrics {
  readonly on = true;
  private readonly registry = new Registry();
  private sources: MetricsSources | undefined;
  private readonly executions = new Counter({
    name: 'codemux_executions_total',
    help: 'Executions ended on this instance, by surface, dialect and activity status',
    labelNames: ['surface', 'dialect', 'status'] as const,
    registers: [this.registry],
  });
  private readonly executionSeconds = new Histogram({
    name: 'codemux_execution_duration_seconds',
    help: 'How long executions took, by surface and activity status',
    labelNames: ['surface', 'status'] as const,
    buckets: EXECUTION_BUCKETS_SECONDS,
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'codemux_tool_calls_total',
    help: 'Upstream tool calls programs made, by server, tool (other: not in the catalog) and activity status',
    labelNames: ['server', 'tool', 'status'] as const,
    registers: [this.registry],
  });
  private readonly toolCallSeconds = new Histogram({
    name: 'codemux_tool_call_duration_seconds',
    help: 'How long upstream tool calls took, from the program asking to its answer, by server',
    labelNames: ['server'] as const,
    buckets: TOOL_CALL_BUCKETS_SECONDS,
    registers: [this.registry],
  });
  private readonly decided = new Counter({
    name: 'codemux_approvals_decided_total',
    help: 'Approvals decided (approved, denied) or expired, by decision and the channel that decided',
    labelNames: ['decision', 'channel'] as const,
    registers: [this.registry],
  });
  private readonly typecheckSeconds = new Histogram({
    name: 'codemux_typecheck_duration_seconds',
    help: 'How long type checks took in the checker worker',
    buckets: TYPECHECK_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  constructor() {
    const metrics = this;
    new Gauge({
      name: 'codemux_upstream_state',
      help: 'Each configured upstream server: 1 for its current state, 0 for the others',
      labelNames: ['server', 'state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { name, state } of metrics.sources?.upstreams() ?? []) {
          for (const each of UPSTREAM_STATES)
            this.set({ server: name, state: each }, +(each === state));
        }
      },
    });
    new Gauge({
      name: 'codemux_approvals_pending',
      help: 'Approvals this instance holds a call for, waiting for a decision',
      registers: [this.registry],
      collect() {
        this.set(metrics.sources?.approvalsPending() ?? 0);
      },
    });
    new Gauge({
      name: 'codemux_running_executions',
      help: 'Runs alive on this instance, yielded ones and those waiting on an approval included',
      registers: [this.registry],
      collect() {
        this.set(metrics.sources?.runningExecutions() ?? 0);
      },
    });
    new Gauge({
      name: 'codemux_sandbox_workers',
      help: 'Sandbox worker threads of this instance, by state',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const counts = metrics.sources?.sandboxWorkers();
        for (const state of WORKER_STATES) this.set({ state }, counts?.[state] ?? 0);
      },
    });
    let droppedBefore = 0;
    new Counter({
      name: 'codemux_telemetry_spans_dropped_total',
      help: 'Trace spans dropped: the export queue full, an export failed, or unsent at shutdown',
      registers: [this.registry],
      collect() {
        const dropped = tracing().droppedSpans();
        if (dropped > droppedBefore) this.inc(dropped - droppedBefore);
        droppedBefore = dropped;
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  watch(sources: MetricsSources): void {
    this.sources = sources;
  }

  executionEnded(end: ExecutionEnd): void {
    const surface = surfaceLabel(end.surface, end.via);
    const status = statusLabel(end.status);
    this.executions.inc({ surface, dialect: dialectLabel(end.surface), status });
    this.executionSeconds.observe({ surface, status }, seconds(end.durationMs));
  }

  toolCallEnded(server: string, tool: string, status: string, durationMs: number): void {
    const known = this.sources?.knownServer(server) === true;
    const serverLabel = known ? server : OTHER;
    const toolLabel = known && this.sources?.knownTool(server, tool) ? tool : OTHER;
    this.toolCalls.inc({ server: serverLabel, tool: toolLabel, status: statusLabel(status) });
    this.toolCallSeconds.observe({ server: serverLabel }, seconds(durationMs));
  }

  approvalDecided(decision: string, decidedBy: string): void {
    this.decided.inc({
      decision: decisionLabel(decision),
      channel: channelLabel(decision, decidedBy),
    });
  }

  typecheckEnded(durationMs: number): void {
    this.typecheckSeconds.observe(seconds(durationMs));
  }

  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
