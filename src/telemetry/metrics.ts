/**
 * @module The metrics contract the instrumentation points call (`metrics()`), a no-op until
 * `startMetrics()` loads prom-client (metrics-live.ts): with `telemetry.metrics: false` nothing
 * is loaded and each point costs one call to an empty function.
 */
import type { WorkerState } from './metrics-labels.ts';

/** What the gauges read at each scrape (the runtime's parts; never on a request's path). */
export interface MetricsSources {
  /** Each configured server and its state. */
  upstreams(): Iterable<{ name: string; state: string }>;
  /** True when `server` is in the config (label values come only from it). */
  knownServer(server: string): boolean;
  /** True when `tool` of `server` is in the catalog (else its label is `other`). */
  knownTool(server: string, tool: string): boolean;
  /** Approvals this instance holds a call for. */
  approvalsPending(): number;
  /** Runs alive on this instance, yielded ones included. */
  runningExecutions(): number;
  /** This instance's sandbox workers by state. */
  sandboxWorkers(): Record<WorkerState, number>;
}

/** An execution's end, as its activity record says it (the labels are bounded by the sink). */
export interface ExecutionEnd {
  /** The activity history's surface (`mcp`, `codemode`, `code_tool`, `rest`, `cli`, `ui`). */
  surface: string;
  /** Where a code tool's call came from when not over MCP (`rest`, `cli`, `ui`). */
  via?: string;
  /** The activity status. */
  status: string;
  durationMs: number;
}

export interface Metrics {
  /** True once prom-client is loaded and the counters are kept. */
  readonly on: boolean;
  executionEnded(end: ExecutionEnd): void;
  /** One upstream call of a program, refused ones included (status `blocked`, `rejected`...). */
  toolCallEnded(server: string, tool: string, status: string, durationMs: number): void;
  /** An approval this instance decided or saw expire (each decision counted once, where it was written). */
  approvalDecided(decision: string, decidedBy: string): void;
  /** One type check the checker's worker finished. */
  typecheckEnded(durationMs: number): void;
  /** Where the gauges read from; the last runtime to call it is the one measured. */
  watch(sources: MetricsSources): void;
  /** The Prometheus text of every metric (undefined when metrics are off). */
  scrape(): Promise<{ contentType: string; text: string }> | undefined;
}

const NO_METRICS: Metrics = {
  on: false,
  executionEnded() {},
  toolCallEnded() {},
  approvalDecided() {},
  typecheckEnded() {},
  watch() {},
  scrape: () => undefined,
};

let current: Metrics = NO_METRICS;
let starting: Promise<Metrics> | undefined;

/** The metrics of this process: a no-op until startMetrics(). */
export function metrics(): Metrics {
  return current;
}

/** Loads prom-client and starts counting (its own registry, Node's process metrics too); idempotent. */
export function startMetrics(): Promise<Metrics> {
  starting ??= import('./metrics-live.ts').then(({ LiveMetrics }) => {
    current = new LiveMetrics();
    return current;
  });
  return starting;
}

/** Back to the no-op (the live registry is dropped); for a process that runs several gateways (tests). */
export function stopMetrics(): void {
  current = NO_METRICS;
  starting = undefined;
}
