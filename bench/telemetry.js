// codemux benchmark of telemetry's cost (`npm run bench:telemetry`, part of `npm run bench`):
// three `codemux serve` processes on the same config but for `telemetry` — off, metrics only,
// metrics and traces at sample ratio 1 (spans exported over OTLP/HTTP to a sink this script
// runs, answering 200 to every batch) — measured side by side in rotating rounds: gateway CPU
// (every thread, /proc) per trivial execution and per upstream call (a program of 40 call_tools,
// less a trivial execution, over 40). Targets (issue 39): metrics add <= 2%, traces <= 10%.
// Loopback only; everything started here is stopped and removed at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cpuSeconds, fmt, freePort, median, table, waitFor, warmFor } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const WARM_MS = 4000;
const ROUNDS = 16;
const TRIVIAL_PER_ROUND = 400;
const CALLS_PER_ROUND = 25;
/** Upstream calls in the calling program: many, so the trivial part subtracted is small. */
const CALLS = 40;
const MANY_CALLS = `for (let i = 0; i < ${CALLS}; i++) call_tool('fixture', 'echo', { message: 'x' + i }); 1`;
const METRICS_TARGET = 1.02;
const TRACES_TARGET = 1.1;

process.removeAllListeners('warning');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-telemetry-'));
let spans = 0;
const sink = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    spans++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkUrl = `http://127.0.0.1:${sink.address().port}/v1/traces`;

const SIDES = [
  { name: 'off', telemetry: { metrics: false } },
  { name: 'metrics', telemetry: { metrics: true } },
  { name: 'metrics+traces', telemetry: { metrics: true, otlp_endpoint: sinkUrl, sample_ratio: 1 } },
];

const gateways = [];
const clients = [];
try {
  for (const side of SIDES) {
    const port = await freePort();
    const file = path.join(dir, `${side.name}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        listen: `127.0.0.1:${port}`,
        data_dir: path.join(dir, side.name),
        code_execution_pool_size: 4,
        mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE] }],
        telemetry: side.telemetry,
      }),
    );
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('OTEL_')) delete env[key];
    const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--log-level', 'warn'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
    gateways.push(child);
    await waitFor(`http://127.0.0.1:${port}/healthz`, 400);
    const client = new Client({ name: 'bench-telemetry', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
    clients.push(client);
  }
  const exec = (client, code) =>
    client.callTool({ name: 'code_execution', arguments: { code } }).then((result) => {
      if (result.isError)
        throw new Error(`the benchmark's program failed: ${JSON.stringify(result)}`);
    });
  await warmFor(
    WARM_MS,
    clients.flatMap((client) => [() => exec(client, '1'), () => exec(client, MANY_CALLS)]),
  );

  // Gateway CPU per program, each side in turn, the order rotating every round.
  const cpuOf = async (code, perRound) => {
    const per = SIDES.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < SIDES.length; k++) {
        const i = (r + k) % SIDES.length;
        const before = cpuSeconds(gateways[i].pid);
        for (let n = 0; n < perRound; n++) await exec(clients[i], code);
        per[i].push(((cpuSeconds(gateways[i].pid) - before) * 1000) / perRound);
      }
    }
    return per.map(median);
  };
  const trivial = await cpuOf('1', TRIVIAL_PER_ROUND);
  const manyCalls = await cpuOf(MANY_CALLS, CALLS_PER_ROUND);
  const perCall = manyCalls.map((ms, i) => Math.max(0, (ms - trivial[i]) / CALLS));

  const results = table();
  const judge = (what, figures, target, i) =>
    results.row(
      `${what}, ${SIDES[i].name}`,
      fmt(figures[i]),
      `off ${fmt(figures[0])} (${(figures[i] / figures[0]).toFixed(3)}x)`,
      `<= ${target}x`,
      figures[i] / figures[0] <= target,
    );
  judge('gateway CPU per trivial execution', trivial, METRICS_TARGET, 1);
  judge('gateway CPU per trivial execution', trivial, TRACES_TARGET, 2);
  judge('gateway CPU per upstream call', perCall, METRICS_TARGET, 1);
  judge('gateway CPU per upstream call', perCall, TRACES_TARGET, 2);
  console.log(`(OTLP batches received by the sink: ${spans})`);
  results.done();
} finally {
  for (const client of clients) await client.close().catch(() => {});
  for (const child of gateways) child.kill('SIGTERM');
  await Promise.all(
    gateways.map((child) =>
      child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
    ),
  );
  sink.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
