/**
 * @module What the metrics' gauges read from one runtime at each scrape (telemetry/metrics.ts),
 * and the names label values may take: servers from the config, tools from the catalog.
 */
import type { SandboxPool } from '../sandbox/index.ts';
import type { MetricsSources } from '../telemetry/metrics.ts';
import type { UpstreamRegistry } from '../upstream/index.ts';
import type { Approvals } from './policy/approvals.ts';
import type { Runs } from './runs/runs.ts';

export interface SourceParts {
  registry: UpstreamRegistry;
  approvals: Approvals;
  runs: Runs;
  sandbox: SandboxPool;
}

/** The runtime's parts as metrics sources; tool names are looked up in sets rebuilt when a tool list changes. */
export function metricsSources(parts: SourceParts): MetricsSources {
  const { registry } = parts;
  let version = -1;
  const tools = new Map<string, ReadonlySet<string>>();
  return {
    upstreams: () => registry.status(),
    knownServer: (server) => registry.server(server) !== undefined,
    knownTool: (server, tool) => {
      if (registry.version !== version) {
        version = registry.version;
        tools.clear();
      }
      let names = tools.get(server);
      if (!names) {
        names = new Set(registry.tools(server).map((t) => t.name));
        tools.set(server, names);
      }
      return names.has(tool);
    },
    approvalsPending: () => parts.approvals.pendingCount,
    runningExecutions: () => parts.runs.running,
    sandboxWorkers: () => parts.sandbox.workerStates(),
  };
}
