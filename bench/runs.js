// codemux benchmark of runs that outlive their request (`npm run bench:runs`; `node --import tsx
// bench/runs.js` after `npm run build`), each figure beside a baseline measured in the same run:
//   1. a run that does not yield pays nothing: trivial code_execution latency and gateway CPU
//      against the build before the feature (commit BEFORE, built into a temporary directory
//      unless --baseline DIR / CODEMUX_BENCH_BASELINE names a built checkout), two gateway
//      processes of each build on the same config, rounds in rotating order;
//   2. a wait answered soon after the run's end: a run held on an approval yields, a waiter
//      continues it by execution_id, the approval is decided; beside a run that never yielded.
//      Across two instances on PostgreSQL when --database-url URL / CODEMUX_BENCH_DATABASE_URL is
//      given, or --postgres (a throwaway server, as bench/cluster.js);
//   3. 100 yielded runs held on approvals: another caller's trivial latency beside an identical
//      gateway holding none, and the gateway's memory and threads per held run.
// Loopback only; everything started here is stopped and removed at the end.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  KEY,
  lastArrival,
  now,
  startGateway,
  stopGateways,
  watchPending,
} from './approval-rounds.js';
import { buildCommit } from './build-before.js';
import { cpuSeconds, fmt, freePort, quantile, table, waitFor, warmFor } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
/** main before issue 35: the build a run that never yields is measured against. */
const BEFORE = '008d3d0';
const TRIVIAL = '1+1';
const COST_WARM_MS = 6000;
const GATEWAYS_PER_BUILD = 2;
const COST_ROUNDS = 24;
const COST_PER_ROUND = 100;
const YIELD_MS = 1000;
const WAIT_ROUNDS = 15;
/** How long a cross-instance waiter is given to register when no progress line says it did. */
const REGISTER_GRACE_MS = 300;
const HELD_RUNS = 100;
const HELD_WARM_MS = 3000;
const HELD_ROUNDS = 8;
const HELD_PER_ROUND = 200;
const IDLE_MS = 3000;
const MB = 1_048_576;

// The SDK's HTTP client collects an abort listener per request on one session: not the gateway.
process.removeAllListeners('warning');

const option = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const delay = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Resident set size (bytes) and thread count of the process `pid`. */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024,
    threads: Number(/Threads:\s+(\d+)/.exec(status)[1]),
  };
}

/** The median of 5 readings of memoryOf, 200 ms apart (RSS moves with each GC). */
async function settledMemory(pid) {
  const readings = [];
  for (let i = 0; i < 5; i++) {
    readings.push(memoryOf(pid));
    await delay(200);
  }
  const mid = (key) => readings.map((r) => r[key]).sort((a, b) => a - b)[2];
  return { rss: mid('rss'), threads: mid('threads') };
}

/** p50 and p95 of `values`. */
function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
}

/** An MCP client over Streamable HTTP to `base`, as the admin (open loopback) or with `token`. */
async function mcp(base, token) {
  const client = new Client({ name: 'bench-runs', version: '1' });
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

const codeExecution = (client, args, options) =>
  client.callTool({ name: 'code_execution', arguments: args }, undefined, {
    timeout: 120_000,
    ...options,
  });

/** Throws unless `result` is a finished code_execution whose value is `value`. */
function expectValue(result, value, what) {
  const body = result.structuredContent;
  if (body?.ok !== true || body.status === 'running' || body.value !== value)
    throw new Error(`${what}: ${JSON.stringify(result.content)}`);
}

/** `codemux serve` of the checkout at `root` on `config` (a free port, its own data dir). */
async function serve(root, dir, name, config) {
  const port = await freePort();
  const file = path.join(dir, `${name}.json`);
  const base = `http://127.0.0.1:${port}`;
  fs.writeFileSync(
    file,
    JSON.stringify({ ...config, listen: `127.0.0.1:${port}`, data_dir: path.join(dir, name) }),
  );
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin', 'codemux.js'), 'serve', '--config', file, '--log-level', 'warn'],
    { stdio: 'ignore' },
  );
  await waitFor(`${base}/healthz`, 600);
  return { base, child };
}

/** An agent token that may call `server` on the gateway of `configFile` (created through the CLI). */
function agentToken(configFile, name, server) {
  const out = execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'bin', 'codemux.js'),
      'token',
      'create',
      '--name',
      name,
      '--servers',
      server,
      '--config',
      configFile,
      '-o',
      'json',
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out).token;
}

async function approve(gateway, id) {
  const r = await fetch(`${gateway.base}/api/v1/approvals/${id}/approve`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
  });
  if (r.status !== 200) throw new Error(`approve ${id} answered ${r.status}: ${await r.text()}`);
}

// ---------------------------------------------------------------------------------------------
// 1. A run that does not yield pays nothing.

/**
 * Trivial code_execution on this build and the build before, the same config: GATEWAYS_PER_BUILD
 * processes of each (two processes of one build differ by several percent on a loaded machine,
 * which a single pair would count as the feature's), their MCP sessions called in rounds whose
 * order rotates. Every call's latency, each build's CPU per call, and the same figures between
 * the two processes of this build (the noise floor of this machine now).
 */
async function payNothing(dir) {
  const given = option('--baseline') ?? process.env.CODEMUX_BENCH_BASELINE;
  const startedBuild = performance.now();
  const built = given ? undefined : buildCommit(ROOT, BEFORE);
  const buildS = (performance.now() - startedBuild) / 1000;
  const gateways = [];
  try {
    const config = {
      code_execution_pool_size: 10,
      mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE] }],
    };
    const builds = [
      { name: 'this build', root: ROOT },
      { name: given ? `baseline ${given}` : `build of ${BEFORE}`, root: given ?? built.dir },
    ];
    // Started alternately (this, before, this, before), so neither build gets the early spots.
    const sides = [];
    for (let n = 0; n < GATEWAYS_PER_BUILD; n++) {
      for (const build of builds) {
        const gateway = await serve(build.root, dir, `cost-${sides.length}`, config);
        gateways.push(gateway);
        const client = await mcp(gateway.base);
        expectValue(await codeExecution(client, { code: TRIVIAL }), 2, build.name);
        sides.push({ build, client, pid: gateway.child.pid, times: [], cpu: 0, calls: 0 });
      }
    }
    const call = (side) => codeExecution(side.client, { code: TRIVIAL });
    await warmFor(
      COST_WARM_MS,
      sides.map((side) => () => call(side)),
    );
    for (let r = 0; r < COST_ROUNDS; r++) {
      // Each side goes first, second, ... in turn.
      const order = sides.map((_, i) => sides[(i + r) % sides.length]);
      if (r % 2) order.reverse();
      for (const side of order) {
        const cpu = cpuSeconds(side.pid);
        for (let k = 0; k < COST_PER_ROUND; k++) {
          const t = performance.now();
          await call(side);
          side.times.push(performance.now() - t);
        }
        side.cpu += cpuSeconds(side.pid) - cpu;
        side.calls += COST_PER_ROUND;
      }
    }
    await Promise.all(sides.map((side) => side.client.close()));
    const figures = (of) => ({
      ...spread(of.flatMap((side) => side.times)),
      cpuMs:
        (of.reduce((sum, side) => sum + side.cpu, 0) * 1000) /
        of.reduce((sum, side) => sum + side.calls, 0),
    });
    const mine = sides.filter((side) => side.build === builds[0]);
    return {
      builds: builds.map((build) => ({
        name: build.name,
        ...figures(sides.filter((side) => side.build === build)),
      })),
      // This build's first process against its second: what "the same" measures as here, now.
      floor: [figures([mine[0]]), figures([mine[1]])],
      buildS: built ? buildS : undefined,
    };
  } finally {
    for (const { child } of gateways) child.kill('SIGTERM');
    await Promise.all(
      gateways.map(
        ({ child }) => new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r))),
      ),
    );
    built?.remove();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. A wait answered soon after the run's end.

let targets = 0;
/** A program whose one call (`wipe`, destructive) is held for approval; it returns true once sent. */
const holdArgs = (target) => ({
  code: `call_tool('mut', 'wipe', { path: ${JSON.stringify(target)} }).ok`,
});

/**
 * A held run that never yields: its request stays open while the approval is decided within the
 * yield time. Milliseconds from the decision's answer, and from the call reaching the upstream,
 * to the request's answer.
 */
async function unyieldedRound(gateway, client, watcher) {
  const target = `/wait-${++targets}`;
  const pending = watcher.pending(target);
  const answer = codeExecution(client, holdArgs(target)).then((result) => ({ result, at: now() }));
  const approval = await pending;
  await approve(gateway, approval.id);
  const decided = now();
  const { result, at } = await answer;
  expectValue(result, true, 'the held run that did not yield');
  return { fromDecision: at - decided, fromUpstream: at - lastArrival(gateway, 'wipe') };
}

/**
 * A held run that yields on `owner` (started by `starter`); `waiter` continues it (its first
 * progress line says its wait is registered), then the approval is decided on `owner`, taken
 * from `watcher` (on a loaded machine the run may reach its call only after the yield).
 * Milliseconds from the decision's answer, and from the call reaching the upstream, to the
 * waiter's answer.
 */
async function yieldedRound(owner, starter, waiter, watcher) {
  const target = `/wait-${++targets}`;
  const pending = watcher.pending(target);
  const running = (await codeExecution(starter, holdArgs(target))).structuredContent;
  if (running?.status !== 'running')
    throw new Error(`the run that should yield: ${JSON.stringify(running)}`);
  let registered;
  const waiting = new Promise((r) => (registered = r));
  const answer = codeExecution(
    waiter,
    { execution_id: running.execution_id, wait_ms: 60_000 },
    { onprogress: () => registered() },
  ).then((result) => ({ result, at: now() }));
  await Promise.race([waiting, delay(REGISTER_GRACE_MS), answer]);
  await approve(owner, (await pending).id);
  const decided = now();
  const { result, at } = await answer;
  expectValue(result, true, `the waiter on ${running.execution_id}`);
  return { fromDecision: at - decided, fromUpstream: at - lastArrival(owner, 'wipe') };
}

const yieldingConfig = (extra = {}) => ({
  code_execution_yield_ms: YIELD_MS,
  tool_policy: { approval_timeout_ms: 600_000 },
  ...extra,
});

/** Same instance: yielded rounds alternated with rounds that never yield. */
async function waitSameInstance(dir) {
  const gateways = [await startGateway(dir, 'wait', yieldingConfig())];
  try {
    const [gateway] = gateways;
    const watcher = await watchPending(gateway);
    const starter = await mcp(gateway.base);
    const waiter = await mcp(gateway.base);
    for (let i = 0; i < 2; i++) {
      await unyieldedRound(gateway, starter, watcher);
      await yieldedRound(gateway, starter, waiter, watcher);
    }
    const yielded = [];
    const direct = [];
    for (let i = 0; i < WAIT_ROUNDS; i++) {
      yielded.push(await yieldedRound(gateway, starter, waiter, watcher));
      direct.push(await unyieldedRound(gateway, starter, watcher));
    }
    watcher.close();
    await Promise.all([starter.close(), waiter.close()]);
    return summarize(yielded, direct);
  } finally {
    await stopGateways(gateways);
  }
}

/** Across instances: the run yields on A, the waiter waits on B; or why it could not run. */
async function waitAcrossInstances(dir, databaseUrl) {
  const gateways = [];
  try {
    for (const id of ['a', 'b'])
      gateways.push(
        await startGateway(dir, id, yieldingConfig({ database_url: databaseUrl, instance_id: id })),
      );
    const [a, b] = gateways;
    const watcher = await watchPending(a);
    const starter = await mcp(a.base);
    const waiter = await mcp(b.base);
    // One probe first: a build without shared runs answers the waiter EXECUTION_NOT_FOUND.
    const held = watcher.pending('/probe');
    const probe = (await codeExecution(starter, holdArgs('/probe'))).structuredContent;
    const seen = await codeExecution(waiter, { execution_id: probe.execution_id, wait_ms: 0 });
    await approve(a, (await held).id);
    expectValue(
      await codeExecution(starter, { execution_id: probe.execution_id, wait_ms: 60_000 }),
      true,
      'the probe run',
    );
    if (seen.structuredContent?.status !== 'running') {
      watcher.close();
      await Promise.all([starter.close(), waiter.close()]);
      return { unavailable: seen.content?.[0]?.text ?? JSON.stringify(seen) };
    }
    await yieldedRound(a, starter, waiter, watcher);
    const rounds = [];
    for (let i = 0; i < WAIT_ROUNDS; i++)
      rounds.push(await yieldedRound(a, starter, waiter, watcher));
    watcher.close();
    await Promise.all([starter.close(), waiter.close()]);
    return summarize(rounds, []);
  } finally {
    await stopGateways(gateways);
  }
}

function summarize(yielded, direct) {
  const of = (rounds, key) => spread(rounds.map((r) => r[key]));
  return {
    decision: of(yielded, 'fromDecision'),
    upstream: of(yielded, 'fromUpstream'),
    directDecision: direct.length ? of(direct, 'fromDecision') : undefined,
    directUpstream: direct.length ? of(direct, 'fromUpstream') : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// 3. 100 yielded runs held on approvals.

/**
 * Two identical gateways; one holds HELD_RUNS yielded runs on approvals. Another caller's
 * trivial latency on each in alternating rounds (before the hold too, to show they match), the
 * holder's RSS and threads before, while held and after the approvals released the runs.
 */
async function heldRuns(dir) {
  const config = yieldingConfig({
    code_execution_max_running: HELD_RUNS + 50,
    tool_policy: { approval_timeout_ms: 600_000, max_pending_per_caller: HELD_RUNS },
  });
  const gateways = [];
  try {
    const ids = ['holding', 'idle'];
    for (const id of ids) gateways.push(await startGateway(dir, id, config));
    const [holding, idle] = gateways;
    // startGateway wrote each config to dir/<id>.json.
    const others = [];
    for (const [i, gateway] of gateways.entries())
      others.push(
        await mcp(gateway.base, agentToken(path.join(dir, `${ids[i]}.json`), 'other', 'mut')),
      );
    const trivial = (client) => () => codeExecution(client, { code: TRIVIAL });
    for (const other of others) expectValue(await trivial(other)(), 2, 'the other caller');
    await warmFor(HELD_WARM_MS, others.map(trivial));
    /** Each gateway's p50, p95 and CPU per call (ms) of the other caller's trivial runs. */
    const rounds = async () => {
      const times = [[], []];
      const cpu = [0, 0];
      for (let r = 0; r < HELD_ROUNDS; r++) {
        for (const i of r % 2 ? [1, 0] : [0, 1]) {
          const used = cpuSeconds(gateways[i].child.pid);
          for (let k = 0; k < HELD_PER_ROUND; k++) {
            const t = performance.now();
            await trivial(others[i])();
            times[i].push(performance.now() - t);
          }
          cpu[i] += cpuSeconds(gateways[i].child.pid) - used;
        }
      }
      const calls = HELD_ROUNDS * HELD_PER_ROUND;
      return times.map((t, i) => ({ ...spread(t), cpuMs: (cpu[i] * 1000) / calls }));
    };
    const before = await rounds();
    const memoryBefore = await settledMemory(holding.child.pid);

    const holder = await mcp(holding.base);
    const watcher = await watchPending(holding);
    const startedHold = performance.now();
    // Started at once, some reach their call only after the yield (the pool starts a worker for
    // each run a hold took one from): their approvals are taken from the stream.
    const held = await Promise.all(
      Array.from({ length: HELD_RUNS }, async (_, i) => {
        const target = `/held-${i}`;
        const pending = watcher.pending(target);
        const running = await codeExecution(holder, holdArgs(target));
        if (running.structuredContent?.status !== 'running')
          throw new Error(`held run ${i}: ${JSON.stringify(running.content)}`);
        return { id: running.structuredContent.execution_id, approval: (await pending).id };
      }),
    );
    const holdS = (performance.now() - startedHold) / 1000;
    watcher.close();
    const memoryHeld = await settledMemory(holding.child.pid);
    // The hold took the workers the other caller's runs had warmed: its runs now go to a worker
    // the pool started meanwhile, whose JIT is cold. Warmed again, as before the hold.
    await warmFor(HELD_WARM_MS, others.map(trivial));
    const during = await rounds();
    // What holding costs when nothing happens: each gateway's CPU over the same idle seconds.
    const idleCpu = gateways.map((g) => cpuSeconds(g.child.pid));
    await delay(IDLE_MS);
    const [idleCpuHeld, idleCpuIdle] = gateways.map(
      (g, i) => ((cpuSeconds(g.child.pid) - idleCpu[i]) * 1000) / (IDLE_MS / 1000),
    );

    for (const run of held) await approve(holding, run.approval);
    for (const run of held)
      expectValue(
        await codeExecution(holder, { execution_id: run.id, wait_ms: 60_000 }),
        true,
        `held run ${run.id}`,
      );
    await holder.close();
    // The extra workers retire once idle; one more job lets the pool notice.
    await trivial(others[0])();
    const memoryAfter = await settledMemory(holding.child.pid);
    const memoryIdle = await settledMemory(idle.child.pid);
    await Promise.all(others.map((c) => c.close()));
    return {
      before,
      during,
      memoryBefore,
      memoryHeld,
      memoryAfter,
      memoryIdle,
      holdS,
      idleCpuHeld,
      idleCpuIdle,
    };
  } finally {
    await stopGateways(gateways);
  }
}

// ---------------------------------------------------------------------------------------------

/** Which parts to run (--parts 1,3): all by default. */
const parts = new Set((option('--parts') ?? '1,2,3').split(','));
const databaseUrlGiven = option('--database-url') ?? process.env.CODEMUX_BENCH_DATABASE_URL;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-runs-'));
const ratio = (a, b) => `${(a / b).toFixed(3)}x`;
const step = (what) => process.stderr.write(`bench/runs.js: ${what}\n`);
// Rows are printed together at the end, under the run's machine state.
const rows = [];
const results = { row: (...row) => rows.push(row) };
const notes = [];
const loads = [];
let postgres;
try {
  if (parts.has('1')) {
    step('1/3 trivial executions beside the build before');
    loads.push(load());
    const cost = await payNothing(dir);
    const [current, before] = cost.builds;
    const [first, second] = cost.floor;
    for (const q of ['p50', 'p95']) {
      results.row(
        `trivial code_execution ${q} (HTTP), no yield`,
        fmt(current[q]),
        `${before.name} ${fmt(before[q])} (${ratio(current[q], before[q])})`,
        '<= 1.03x',
        current[q] <= 1.03 * before[q],
      );
    }
    results.row(
      'gateway CPU per trivial execution (/proc)',
      fmt(current.cpuMs),
      `${before.name} ${fmt(before.cpuMs)} (${ratio(current.cpuMs, before.cpuMs)})`,
      '<= 1.03x',
      current.cpuMs <= 1.03 * before.cpuMs,
    );
    notes.push(
      `No yield: ${GATEWAYS_PER_BUILD} gateway processes per build on the same config, one MCP session each, ${COST_ROUNDS} rounds of\n` +
        `${COST_PER_ROUND} calls on each (order rotating). This build's two processes against each other (the noise floor now):\n` +
        `p50 ${ratio(first.p50, second.p50)}, p95 ${ratio(first.p95, second.p95)}, CPU ${ratio(first.cpuMs, second.cpuMs)}` +
        (cost.buildS ? `; ${before.name} made in ${cost.buildS.toFixed(0)} s.` : '.'),
    );
  }
  if (parts.has('2')) {
    step('2/3 waits on yielded runs');
    loads.push(load());
    const same = await waitSameInstance(dir);
    waitRows('same instance', same, 50);
    notes.push(
      `Waits: ${WAIT_ROUNDS} rounds (p95 of ${WAIT_ROUNDS} is the largest but one). A program's one call is held for approval;\n` +
        `it yields after ${YIELD_MS} ms, a waiter continues it by execution_id over MCP (wait registered: its first progress\n` +
        'line), then POST /api/v1/approvals/{id}/approve. "decided" is when that POST answered. From the call reaching the\n' +
        `upstream (the fixture's stamp) to the waiter's answer: p50 ${fmt(same.upstream.p50)}, p95 ${fmt(same.upstream.p95)}` +
        ` (no yield: ${fmt(same.directUpstream.p50)}, ${fmt(same.directUpstream.p95)}).`,
    );
    let databaseUrl = databaseUrlGiven;
    if (!databaseUrl && process.argv.includes('--postgres')) {
      const { startPostgres } = await import('../test/postgres.ts');
      postgres = await startPostgres();
      databaseUrl = await postgres.database('bench_runs');
    }
    if (!databaseUrl) {
      notes.push(
        'Across instances: not run (give --database-url URL, CODEMUX_BENCH_DATABASE_URL, or --postgres).',
      );
    } else {
      const across = await waitAcrossInstances(dir, databaseUrl);
      if (across.unavailable) {
        notes.push(
          `Across instances: not measurable with this build: instance B answered the waiter ${across.unavailable}`,
        );
      } else {
        waitRows('across instances', across, 1000);
        notes.push(
          `Across instances (PostgreSQL): the run on A, the waiter on B; from the call reaching A's upstream to B's answer:\n` +
            `p50 ${fmt(across.upstream.p50)}, p95 ${fmt(across.upstream.p95)}.`,
        );
      }
    }
  }
  if (parts.has('3')) {
    step(`3/3 ${HELD_RUNS} runs held on approvals`);
    loads.push(load());
    const held = await heldRuns(dir);
    const [heldH, heldI] = held.during;
    const [beforeH, beforeI] = held.before;
    for (const q of ['p50', 'p95']) {
      results.row(
        `other caller's trivial ${q}, ${HELD_RUNS} runs held`,
        fmt(heldH[q]),
        `same gateway holding none ${fmt(heldI[q])} (${ratio(heldH[q], heldI[q])})`,
        '<= 1.10x',
        heldH[q] <= 1.1 * heldI[q],
      );
    }
    const mb = (bytes) => `${(bytes / MB).toFixed(0)} MB`;
    const perRun = (held.memoryHeld.rss - held.memoryBefore.rss) / HELD_RUNS / MB;
    results.row(
      'gateway RSS per held yielded run',
      `${perRun.toFixed(2)} MB`,
      `RSS ${mb(held.memoryBefore.rss)} -> ${mb(held.memoryHeld.rss)}`,
      '(reported)',
      true,
    );
    notes.push(
      `Held runs: ${HELD_RUNS} started at once were all running and waiting on their approvals after ${held.holdS.toFixed(1)} s.\n` +
        `Another caller (an agent token) before the hold: ${fmt(beforeH.p50)} / ${fmt(beforeH.p95)} on the holding gateway, ` +
        `${fmt(beforeI.p50)} / ${fmt(beforeI.p95)} on the other (p50 / p95). Gateway CPU per such call: before the hold\n` +
        `${fmt(beforeH.cpuMs)} on the holding gateway, ${fmt(beforeI.cpuMs)} on the other; while held ${fmt(heldH.cpuMs)}, ${fmt(heldI.cpuMs)}.\n` +
        `The holding gateway: threads ${held.memoryBefore.threads} -> ${held.memoryHeld.threads} while held -> ${held.memoryAfter.threads} after the approvals; ` +
        `RSS after ${mb(held.memoryAfter.rss)} (the gateway that held none: ${mb(held.memoryIdle.rss)}); ` +
        `CPU while holding and idle ${held.idleCpuHeld.toFixed(1)} ms/s (the other: ${held.idleCpuIdle.toFixed(1)} ms/s).`,
    );
  }
  loads.push(load());
  console.log(
    `\ncodemux runs that outlive their request, ${os.cpus().length} cores, Node ${process.versions.node}, load average at each part ${loads.join(' | ')}\n`,
  );
  const printed = table();
  for (const row of rows) printed.row(...row);
  printed.done();
  console.log(`\n${notes.join('\n')}`);
} finally {
  await postgres?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

/** The rows of a wait measurement against `targetMs`. */
function waitRows(where, figures, targetMs) {
  for (const q of ['p50', 'p95']) {
    results.row(
      `approval decided -> waiter's answer, ${where} (${q})`,
      fmt(figures.decision[q]),
      figures.directDecision
        ? `no yield: -> the request's answer ${fmt(figures.directDecision[q])}`
        : `call at upstream -> waiter ${fmt(figures.upstream[q])}`,
      `< ${targetMs} ms`,
      figures.decision[q] < targetMs,
    );
  }
}
