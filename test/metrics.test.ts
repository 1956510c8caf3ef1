/**
 * Prometheus metrics with real parts: `codemux serve` over fixture upstreams (one that crashes
 * on a call, one that exits at every start), scraped every second by a real Prometheus
 * (/usr/bin/prometheus, the admin key as a bearer credentials file); the values are read back
 * through Prometheus's query API after real executions, errors, an approval and the crashes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, type RunningGateway, startGateway } from './gateway.ts';
import {
  FIXTURE_SERVER,
  failingServer,
  ROOT,
  runCli,
  settle,
  until,
  writeConfig,
} from './helpers.ts';
import { freePort } from './http-servers.ts';
import { startInProcess } from './in-process.ts';
import { prometheusPath } from './system-parts.ts';

const FAULTY_SERVER = path.join(ROOT, 'test', 'fixtures', 'faulty-server.mjs');
const KEY = 'metrics-test-admin-key';
/** Prometheus scrapes this often: each wait below is a few scrapes at most. */
const SCRAPE_INTERVAL = '1s';
/** Waits on Prometheus: a value shows once a scrape after the event has been ingested. */
const PROMETHEUS_WAIT_MS = 20_000;

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
type Json = any;

interface RunningPrometheus {
  url: string;
  child: ChildProcess;
  output(): string;
}

/** Starts Prometheus in `dir`, scraping `target`'s /metrics with the admin key as a bearer credentials file. */
async function startPrometheus(dir: string, target: string): Promise<RunningPrometheus> {
  const keyFile = path.join(dir, 'admin_key');
  fs.writeFileSync(keyFile, `${KEY}\n`);
  const configFile = path.join(dir, 'prometheus.yml');
  // JSON is YAML: the scrape config as the docs show it, with a short interval.
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      global: { scrape_interval: SCRAPE_INTERVAL, evaluation_interval: SCRAPE_INTERVAL },
      scrape_configs: [
        {
          job_name: 'codemux',
          metrics_path: '/metrics',
          authorization: { type: 'Bearer', credentials_file: keyFile },
          static_configs: [{ targets: [target] }],
        },
      ],
    }),
  );
  const port = await freePort();
  const child = spawn(
    prometheusPath(),
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      'Prometheus to be ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited:\n${out}`);
        const ready = await fetch(`${url}/-/ready`).catch(() => undefined);
        return ready?.ok ? true : undefined;
      },
      20_000,
    );
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { url, child, output: () => out };
}

/** Stops a child and resolves when it has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('Prometheus metrics, scraped by a real Prometheus', () => {
  const dirs: string[] = [];
  let g: RunningGateway;
  let prometheus: RunningPrometheus | undefined;
  const dies = failingServer();

  /** The instant vector of `expr`, as Prometheus answers it now. */
  async function query(
    expr: string,
  ): Promise<Array<{ metric: Record<string, string>; value: number }>> {
    const response = await fetch(
      `${prometheus!.url}/api/v1/query?query=${encodeURIComponent(expr)}`,
    );
    const body = (await response.json()) as Json;
    if (body.status !== 'success') throw new Error(`query ${expr} failed: ${JSON.stringify(body)}`);
    return body.data.result.map((r: Json) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  /** Waits until `expr`'s single value satisfies `holds`; returns it (throws naming `expr` past the wait). */
  async function settled(expr: string, holds: (value: number) => boolean): Promise<number> {
    const read = async () => {
      const [first] = await query(expr);
      return first?.value;
    };
    const value = await settle(read, (v) => v !== undefined && holds(v), PROMETHEUS_WAIT_MS, 200);
    if (value === undefined || !holds(value))
      throw new Error(`Prometheus never saw ${expr} hold (last: ${value})`);
    return value;
  }

  const exec = (body: Json): Promise<Json> =>
    g.rest('POST', '/api/v1/code/exec', body).then((r) => r.json);

  beforeAll(async () => {
    const configFile = writeConfig({
      api_key: KEY,
      tool_pinning: 'off',
      tool_policy: {
        rules: [{ server: 'fixture', tool: 'structured', action: 'ask' }],
        approval_timeout_ms: 120_000,
      },
      mcpServers: {
        fixture: { command: process.execPath, args: [FIXTURE_SERVER] },
        faulty: { command: process.execPath, args: [FAULTY_SERVER] },
        dies: dies.entry,
      },
    });
    dirs.push(path.dirname(configFile), path.dirname(dies.entry.env.STARTS_FILE!));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-prometheus-'));
    dirs.push(dir);
    // Both at once: Prometheus scrapes the port until the gateway answers on it.
    const port = await freePort();
    const [gateway, scraper] = await Promise.allSettled([
      startGateway(configFile, { port }),
      startPrometheus(dir, `127.0.0.1:${port}`),
    ]);
    // Whichever started is stopped by afterAll, whichever did not fails the file.
    if (gateway.status === 'fulfilled') g = gateway.value;
    if (scraper.status === 'fulfilled') prometheus = scraper.value;
    for (const started of [gateway, scraper])
      if (started.status === 'rejected') throw started.reason;
    await settle(
      async () => (await g.rest('GET', '/api/v1/servers')).json.value.servers as Json[],
      (servers) => servers.filter((s) => s.state === 'ready').length === 2,
    );
    // A scrape with the key has landed: the target is up.
    await settled('up{job="codemux"}', (v) => v === 1);
  }, 60_000);

  afterAll(async () => {
    if (prometheus) await stopChild(prometheus.child);
    await g?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts executions by surface, dialect and status, and their upstream calls', async () => {
    await g.rest('POST', '/api/v1/code-tools', { name: 'two' });
    await g.rest('PUT', '/api/v1/code-tools/two', { code: '2' });
    // At once: the type checker's worker starts while the others run.
    const codemode = await adminClient(g, '/mcp/codemode');
    const [ok, failed, toolError, typed, answer, tool, cli] = await Promise.all([
      exec({ code: "call_tool('fixture', 'echo', {message: 'hi'}); 1" }),
      exec({ code: "throw new Error('on purpose')" }),
      exec({ code: "call_tool('fixture', 'fail', {}).ok" }),
      exec({ code: 'const n: number = 2; n', language: 'typescript' }),
      codemode.callTool({ name: 'execute', arguments: { code: 'return 1' } }),
      g.rest('POST', '/api/v1/code-tools/two/run', { arguments: {} }),
      // The CLI names itself when it goes through the gateway.
      g.rest(
        'POST',
        '/api/v1/code/exec',
        { code: '3' },
        {
          'x-api-key': KEY,
          'content-type': 'application/json',
          'x-codemux-surface': 'cli',
        },
      ),
    ]).finally(() => codemode.close());
    expect(ok.ok).toBe(true);
    expect(failed.error.code).toBe('RUNTIME_ERROR');
    expect(toolError.value).toBe(false);
    expect(typed.value).toBe(2);
    expect(answer.isError).toBeFalsy();
    expect(tool.json.value).toBe(2);
    expect(cli.json.value).toBe(3);

    const rest = 'codemux_executions_total{surface="rest",dialect="code_execution"';
    expect(await settled(`${rest},status="success"}`, (v) => v >= 3)).toBe(3);
    expect(await settled(`${rest},status="error"}`, (v) => v >= 1)).toBe(1);
    await settled(
      'codemux_executions_total{surface="rest",dialect="code_tool",status="success"}',
      (v) => v === 1,
    );
    await settled(
      'codemux_executions_total{surface="cli",dialect="code_execution",status="success"}',
      (v) => v === 1,
    );
    await settled(
      'codemux_executions_total{surface="mcp",dialect="execute",status="success"}',
      (v) => v >= 1,
    );
    await settled(
      'codemux_execution_duration_seconds_count{surface="rest",status="success"}',
      (v) => v >= 3,
    );
    await settled(
      'codemux_tool_calls_total{server="fixture",tool="echo",status="success"}',
      (v) => v >= 1,
    );
    await settled(
      'codemux_tool_calls_total{server="fixture",tool="fail",status="tool_error"}',
      (v) => v >= 1,
    );
    await settled('codemux_tool_call_duration_seconds_count{server="fixture"}', (v) => v >= 2);
    await settled('codemux_typecheck_duration_seconds_count', (v) => v >= 1);
    await settled('sum(codemux_sandbox_workers)', (v) => v >= 1);
    // Node's process metrics come with them.
    await settled('process_resident_memory_bytes{job="codemux"}', (v) => v > 0);
  });

  it('shows an approval pending while it is held, then decided', async () => {
    const held = exec({ code: "call_tool('fixture', 'structured', {}).ok" });
    const [approval] = await settle(
      async () => (await g.rest('GET', '/api/v1/approvals?status=pending')).json.items as Json[],
      (items) => items.length === 1,
    );
    expect(approval).toBeDefined();
    await settled('codemux_approvals_pending', (v) => v === 1);
    await settled('codemux_running_executions', (v) => v === 1);
    const decided = await g.rest('POST', `/api/v1/approvals/${approval.id}/approve`);
    expect(decided.status).toBe(200);
    expect((await held).value).toBe(true);
    await settled(
      'codemux_approvals_decided_total{decision="approved",channel="rest"}',
      (v) => v === 1,
    );
    await settled('codemux_approvals_pending', (v) => v === 0);
    await settled('codemux_running_executions', (v) => v === 0);
  });

  it('sees an upstream crash: the failed call, and a server that keeps exiting as failed', async () => {
    const crashed = await exec({ code: "call_tool('faulty', 'crash', {}).ok" });
    expect(crashed.value).toBe(false);
    await settled(
      'sum(codemux_tool_calls_total{server="faulty",tool="crash",status!="success"})',
      (v) => v === 1,
    );
    // Between its retries the server that exits at every start reads failed.
    await settled(
      'max_over_time(codemux_upstream_state{server="dies",state="failed"}[1m])',
      (v) => v === 1,
    );
    expect(dies.starts()).toBeGreaterThanOrEqual(2);
    await settled('codemux_upstream_state{server="dies",state="ready"}', (v) => v === 0);
    // The crashed one is connected again.
    await settled('codemux_upstream_state{server="faulty",state="ready"}', (v) => v === 1);
  });

  it('keeps made-up tool and server names out of the series (they count as other)', async () => {
    const flood = await exec({
      code: `for (let i = 0; i < 300; i++) { call_tool('fixture', 'made_up_' + i, {}); call_tool('ghost_' + i, 'x', {}); } 1`,
    });
    expect(flood.value).toBe(1);
    await settled(
      'codemux_tool_calls_total{server="fixture",tool="other",status="error"}',
      (v) => v === 300,
    );
    await settled(
      'codemux_tool_calls_total{server="other",tool="other",status="error"}',
      (v) => v === 300,
    );
    expect(await query('{__name__=~"codemux_.*", tool=~"made_up_.*"}')).toEqual([]);
    expect(await query('{__name__=~"codemux_.*", server=~"ghost_.*"}')).toEqual([]);
    const text = await (
      await fetch(`${g.url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })
    ).text();
    expect(text).not.toMatch(/made_up_|ghost_/);
  });

  it('asks for the admin key, as a header or a bearer token', async () => {
    const none = await fetch(`${g.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await none.json()) as Json).error.code).toBe('UNAUTHORIZED');
    expect(
      (await fetch(`${g.url}/metrics`, { headers: { authorization: 'Bearer nope' } })).status,
    ).toBe(401);
    const header = await fetch(`${g.url}/metrics`, { headers: { 'x-api-key': KEY } });
    expect(header.status).toBe(200);
    expect(header.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await header.text()).toContain('# TYPE codemux_executions_total counter');
  });

  it('refuses an agent token: /metrics is for the admin key', async () => {
    const created = await g.rest('POST', '/api/v1/tokens', { name: 'agent', servers: ['fixture'] });
    expect(created.status).toBe(201);
    const response = await fetch(`${g.url}/metrics`, {
      headers: { authorization: `Bearer ${created.json.value.token}` },
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as Json).error.code).toBe('FORBIDDEN');
  });

  it('opens /metrics without a key once metrics_auth is false (hot-reloaded)', async () => {
    const raw = JSON.parse(fs.readFileSync(g.configFile, 'utf8'));
    fs.writeFileSync(g.configFile, JSON.stringify({ ...raw, metrics_auth: false }, null, 2));
    const open = await settle(
      () => fetch(`${g.url}/metrics`).then((r) => r.status),
      (status) => status === 200,
    );
    expect(open).toBe(200);
  });
});

describe('metrics settings', () => {
  it('answers 404 on /metrics when telemetry.metrics is false', async () => {
    const app = await startInProcess({ telemetry: { metrics: false } });
    try {
      const response = await app.request('/metrics', { headers: { 'x-api-key': app.key } });
      expect(response.status).toBe(404);
      expect(((await response.json()) as Json).error.message).toContain('telemetry.metrics: false');
    } finally {
      await app.stop();
    }
  });

  // Every bad value is named (src/config/telemetry-config.test.ts); here the exit code of serve.
  it('exits 2 on a bad telemetry field, naming it', async () => {
    const configFile = writeConfig({ telemetry: { metrics: 'yes' } });
    try {
      const run = await runCli(['serve', '--config', configFile]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('field "telemetry.metrics" must be true or false');
    } finally {
      fs.rmSync(path.dirname(configFile), { recursive: true, force: true });
    }
  });
});
