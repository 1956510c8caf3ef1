// codemux scale-out benchmark (`npm run bench:cluster`): trivial executions per second through
// 1 vs 3 `codemux serve` instances sharing one PostgreSQL (a throwaway server started here),
// and the cost of a cluster slot (cluster_max_concurrent_requests) on a call to an upstream.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../test/postgres.ts';
import { fmt, freePort, median, table } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const KEY = 'bench-admin-key';
const ROUNDS = 5;
const PER_ROUND = 300;
const CONCURRENCY = 16;
const SLOT_CALLS = 200;

async function startInstance(id, databaseUrl, dir) {
  const port = await freePort();
  const file = path.join(dir, `${id}.json`);
  const fixture = { command: process.execPath, args: [FIXTURE] };
  fs.writeFileSync(
    file,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      api_key: KEY,
      database_url: databaseUrl,
      instance_id: id,
      data_dir: path.join(dir, id),
      mcpServers: {
        plain: fixture,
        limited: { ...fixture, cluster_max_concurrent_requests: 100, queue_size: 100 },
      },
    }),
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 400 && !out.includes(' listening on '); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!out.includes(' listening on ')) throw new Error(`instance ${id} did not start`);
  return { base, child };
}

const exec = (base, code) =>
  fetch(`${base}/api/v1/code/exec`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  }).then(async (r) => {
    const body = await r.json();
    if (!body.ok) throw new Error(JSON.stringify(body.error));
  });

/** Executions per second: `total` trivial runs, CONCURRENCY at a time, spread over `bases`. */
async function throughput(bases, total) {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < total; i = next++) await exec(bases[i % bases.length], '1');
    }),
  );
  return total / ((performance.now() - t) / 1000);
}

/** Median latency of one execution making one call to `server`, one at a time. */
async function callLatency(base, server) {
  const times = [];
  for (let i = 0; i < SLOT_CALLS; i++) {
    const t = performance.now();
    await exec(base, `return await call_tool("${server}", "echo", { message: "x" });`);
    times.push(performance.now() - t);
  }
  return median(times);
}

const postgres = await startPostgres();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-cluster-'));
const instances = [];
try {
  const url = await postgres.database('bench');
  for (const id of ['a', 'b', 'c']) instances.push(await startInstance(id, url, dir));
  const bases = instances.map((i) => i.base);
  // Warm every instance (workers, upstream connections, pools).
  await throughput(bases, 300);
  const one = [];
  const three = [];
  // Interleaved rounds, so load from other work on the machine hits both alike.
  for (let r = 0; r < ROUNDS; r++) {
    one.push(await throughput(bases.slice(0, 1), PER_ROUND));
    three.push(await throughput(bases, PER_ROUND));
  }
  await callLatency(bases[0], 'plain');
  await callLatency(bases[0], 'limited');
  const plain = await callLatency(bases[0], 'plain');
  const limited = await callLatency(bases[0], 'limited');
  const [a, b] = [median(one), median(three)];
  const results = table();
  console.log(
    `\ncodemux on PostgreSQL: REST /api/v1/code/exec, ${CONCURRENCY} clients, ${os.cpus().length} cores\n`,
  );
  results.row(
    'trivial executions/s, 3 instances',
    `${b.toFixed(0)}/s`,
    `1 instance ${a.toFixed(0)}/s (${(b / a).toFixed(2)}x)`,
    '>= 0.8x of 1 (cores are shared here)',
    b >= 0.8 * a,
  );
  results.row(
    'execution with 1 call, cluster slot',
    fmt(limited),
    `without ${fmt(plain)} (+${fmt(Math.max(0, limited - plain))})`,
    '<= +2 ms',
    limited - plain <= 2,
  );
  results.done();
} finally {
  for (const { child } of instances) child.kill('SIGTERM');
  await Promise.all(
    instances.map(
      ({ child }) => new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r))),
    ),
  );
  await postgres.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
