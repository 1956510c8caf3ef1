import { describe, expect, it } from 'vitest';
import type { MetricsSources } from './metrics.ts';
import { LiveMetrics } from './metrics-live.ts';

/** Sources of a runtime with one server `fs` whose catalog holds `read`. */
const sources: MetricsSources = {
  upstreams: () => [{ name: 'fs', state: 'failed' }],
  knownServer: (server) => server === 'fs',
  knownTool: (server, tool) => server === 'fs' && tool === 'read',
  approvalsPending: () => 2,
  runningExecutions: () => 3,
  sandboxWorkers: () => ({ starting: 0, idle: 1, busy: 4, held: 1 }),
};

async function scraped(live: LiveMetrics): Promise<string> {
  return (await live.scrape()).text;
}

/** The lines of the series named `name` (sample lines, no comments). */
const series = (text: string, name: string) =>
  text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

describe('LiveMetrics', () => {
  it('counts executions by surface, dialect and status, with their durations', async () => {
    const live = new LiveMetrics();
    live.executionEnded({ surface: 'codemode', status: 'success', durationMs: 20 });
    live.executionEnded({ surface: 'ui', status: 'error', durationMs: 1500 });
    const text = await scraped(live);
    expect(series(text, 'codemux_executions_total')).toEqual([
      'codemux_executions_total{surface="mcp",dialect="execute",status="success"} 1',
      'codemux_executions_total{surface="dashboard",dialect="code_execution",status="error"} 1',
    ]);
    expect(text).toContain(
      'codemux_execution_duration_seconds_sum{surface="dashboard",status="error"} 1.5',
    );
  });

  it('gives servers outside the config and tools outside the catalog the label other', async () => {
    const live = new LiveMetrics();
    live.watch(sources);
    for (let i = 0; i < 500; i++) live.toolCallEnded('fs', `made_up_${i}`, 'error', 1);
    for (let i = 0; i < 500; i++) live.toolCallEnded(`server_${i}`, 'read', 'error', 1);
    live.toolCallEnded('fs', 'read', 'success', 1);
    const text = await scraped(live);
    expect(series(text, 'codemux_tool_calls_total')).toEqual([
      'codemux_tool_calls_total{server="fs",tool="other",status="error"} 500',
      'codemux_tool_calls_total{server="other",tool="other",status="error"} 500',
      'codemux_tool_calls_total{server="fs",tool="read",status="success"} 1',
    ]);
    expect(series(text, 'codemux_tool_call_duration_seconds_count')).toEqual([
      'codemux_tool_call_duration_seconds_count{server="fs"} 501',
      'codemux_tool_call_duration_seconds_count{server="other"} 500',
    ]);
  });

  it('reads the gauges from the sources at each scrape', async () => {
    const live = new LiveMetrics();
    live.watch(sources);
    const text = await scraped(live);
    expect(text).toContain('codemux_upstream_state{server="fs",state="failed"} 1');
    expect(text).toContain('codemux_upstream_state{server="fs",state="ready"} 0');
    expect(text).toContain('codemux_approvals_pending 2');
    expect(text).toContain('codemux_running_executions 3');
    expect(text).toContain('codemux_sandbox_workers{state="busy"} 4');
    // Node's process metrics, on the same registry.
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('counts approvals by decision and channel, and type checks', async () => {
    const live = new LiveMetrics();
    live.approvalDecided('approved', 'admin via dashboard');
    live.approvalDecided('expired', 'timeout');
    live.typecheckEnded(250);
    const text = await scraped(live);
    expect(series(text, 'codemux_approvals_decided_total')).toEqual([
      'codemux_approvals_decided_total{decision="approved",channel="dashboard"} 1',
      'codemux_approvals_decided_total{decision="expired",channel="none"} 1',
    ]);
    expect(text).toContain('codemux_typecheck_duration_seconds_sum 0.25');
  });
});
