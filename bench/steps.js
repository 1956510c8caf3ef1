// codemux benchmark of what each step of waves 3 and 4 added to the request path (issue 37;
// `npm run bench:steps`, not part of `npm run bench`: it builds old commits). Each commit of STEPS
// is built (bench/build-before.js: git archive into a temporary directory, this checkout's
// node_modules linked, its own `npm run build`; one that cannot build is reported and skipped),
// and every build, this checkout's dist/ last, is measured side by side in the same run on the
// same config, in rounds whose order rotates (so the load of this shared machine hits all alike):
//   1. trivial code_execution ("1") over Streamable HTTP beside an MCP ping on the same session;
//   2. the gateway's CPU (every thread, /proc utime + stime) per trivial execution, 4 HTTP clients;
//   3. trivial code_execution over `codemux stdio` beside a direct server-everything echo (stdio);
//   4. ten call_tools in one program (stdio) beside ten direct calls to the fixture (stdio).
// A second gateway of this checkout is measured as if it were one more step: what two processes
// of the same build differ by is this run's noise floor. `--cache DIR` keeps the builds in
// DIR/<commit> and reuses them next time. Loopback only; everything started here is stopped.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildCommit } from './build-before.js';
import {
  cpuSeconds,
  fmt,
  freePort,
  median,
  rotatingGroups,
  sideBySide,
  table,
  throughput,
  waitFor,
  warmFor,
} from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const EVERYTHING = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
/** The steps, oldest first: a commit of this checkout's history and what it added. */
const STEPS = [
  { commit: '02471e3', label: "wave 2's end (before pinning)" },
  { commit: '75aec30', label: 'tool pinning merged' },
  { commit: 'dcc99c8', label: 'tool policy and approvals merged' },
  { commit: '3e0e236', label: "policy's synchronous verdict, lazy AbortController" },
  { commit: '8b9c030', label: 'upstream OAuth' },
  { commit: 'ca986ad', label: 'MCP 2026-07-28 (2.x SDK, era detection on /mcp)' },
  { commit: 'c7eba4a', label: 'type checks wired' },
  { commit: '2b6b1b2', label: 'issue 24 (servers over REST, activity filters)' },
  { commit: '008d3d0', label: 'issues 33, 34 (before issue 35)' },
  { commit: '5452c87', label: "issues 35, 36 (long runs, journal): wave 3's end" },
];
/** Warm-up per build (every build's calls in turn), before the HTTP and the stdio rounds. */
const HTTP_WARM_MS_PER_BUILD = 2000;
const STDIO_WARM_MS_PER_BUILD = 3000;
const HTTP_ROUNDS = 40;
const HTTP_PER_ROUND = 10;
const CPU_CLIENTS = 4;
const CPU_ROUNDS = 10;
const CPU_ROUND_MS = 1000;
const STDIO_ROUNDS = 30;
const STDIO_PER_ROUND = 3;
const TEN_CALLS = "for (let i = 0; i < 10; i++) call_tool('fixture', 'echo', {message: 'x'}); 1";

// The SDK's HTTP client collects an abort listener per request on one session: not the gateway.
process.removeAllListeners('warning');

const option = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const began = performance.now();
/** A progress line on stderr: what is done, when, at what load. */
const progress = (what) =>
  console.error(`[${((performance.now() - began) / 1000).toFixed(0)} s] ${what}; ${uptime()}`);

/**
 * A build of `commit`: DIR/<commit> when `cacheDir` is given and holds one, else built (and
 * moved into DIR/<commit> when given). Resolves with `{root, remove}`, or throws why not.
 */
function builtCommit(commit, cacheDir) {
  const cached = cacheDir && path.join(cacheDir, commit);
  if (cached && fs.existsSync(path.join(cached, 'dist'))) return { root: cached, remove() {} };
  const { dir, remove } = buildCommit(ROOT, commit);
  if (!cached) return { root: dir, remove };
  fs.mkdirSync(cacheDir, { recursive: true });
  fs.rmSync(cached, { recursive: true, force: true });
  try {
    fs.renameSync(dir, cached);
  } catch {
    fs.cpSync(dir, cached, { recursive: true, verbatimSymlinks: true });
    remove();
  }
  return { root: cached, remove() {} };
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-steps-'));
let configs = 0;
/** A config file every build reads alike (fields all of them know): pool 10, history on. */
async function gatewayConfig() {
  const name = `gateway-${configs++}`;
  const file = path.join(work, `${name}.json`);
  const port = await freePort();
  fs.writeFileSync(
    file,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      data_dir: path.join(work, name),
      code_execution_pool_size: 10,
      mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE] }],
    }),
  );
  return { file, port };
}

const children = [];
const clients = [];
async function connect(transport) {
  const client = new Client({ name: 'bench-steps', version: '1' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
const exec = (client, code) => client.callTool({ name: 'code_execution', arguments: { code } });
/** Throws unless `result` is a successful execution (an old build must really run the program). */
function expectSuccess(result, what) {
  if (result.isError) throw new Error(`${what}: ${JSON.stringify(result.content).slice(0, 300)}`);
}

/** `codemux serve` of the build at `root` and its MCP sessions: one, and CPU_CLIENTS more. */
async function startServe(root) {
  const { file, port } = await gatewayConfig();
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin', 'codemux.js'), 'serve', '--config', file, '--log-level', 'warn'],
    { stdio: 'ignore' },
  );
  children.push(child);
  await waitFor(`http://127.0.0.1:${port}/healthz`, 600);
  const session = () =>
    connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const http = await session();
  const loaders = await Promise.all(Array.from({ length: CPU_CLIENTS }, session));
  // The upstream connected before anything is measured.
  expectSuccess(await exec(http, "call_tool('fixture', 'echo', {message: 'x'})"), root);
  return { child, http, loaders };
}

/** `codemux stdio` of the build at `root`, spawned by an MCP client as an agent would. */
async function startStdio(root) {
  const { file } = await gatewayConfig();
  const client = await connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(root, 'bin', 'codemux.js'), 'stdio', '--config', file],
      stderr: 'ignore',
    }),
  );
  expectSuccess(await exec(client, TEN_CALLS), root);
  return client;
}

const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
const signed = (value, text) => `${value >= 0 ? '+' : '-'}${text(Math.abs(value))}`;

const cacheDir = option('--cache');
const loadBefore = uptime();
console.log(`${loadBefore}\n`);
const builds = [];
for (const step of STEPS) {
  const subject = git('log', '-1', '--format=%s', step.commit);
  const started = performance.now();
  try {
    const { root, remove } = builtCommit(step.commit, cacheDir);
    builds.push({ ...step, root, remove });
    const s = ((performance.now() - started) / 1000).toFixed(0);
    console.log(`${step.commit} ${step.label} (built in ${s} s): ${subject.slice(0, 90)}`);
  } catch (error) {
    console.log(`${step.commit} ${step.label}: SKIPPED, it does not build (${error.message})`);
  }
}
// This checkout is named by the last commit that changed src/ (what its dist/ is built from).
const head = git('log', '-1', '--format=%h', 'HEAD', '--', 'src');
const dirty = git('status', '--porcelain', '--', 'src') ? ', src/ changed since' : '';
builds.push({ commit: head, label: `this checkout (dist/${dirty})`, root: ROOT, remove() {} });
builds.push({ commit: head, label: 'this checkout, a second process', root: ROOT, remove() {} });

try {
  const sides = [];
  for (const build of builds) {
    try {
      sides.push({ build, serve: await startServe(build.root) });
    } catch (error) {
      console.log(`${build.commit} ${build.label}: SKIPPED, its gateway did not serve (${error})`);
    }
  }
  progress(`${sides.length} gateways serving`);

  // 1. Trivial over HTTP beside a ping on the same session; each build's pair in turn.
  const httpFns = sides.flatMap((side) => [
    () => exec(side.serve.http, '1'),
    () => side.serve.http.ping(),
  ]);
  await warmFor(HTTP_WARM_MS_PER_BUILD * sides.length, httpFns);
  const httpTimes = await sideBySide(httpFns, HTTP_PER_ROUND, HTTP_ROUNDS, rotatingGroups(2));
  progress('trivial over HTTP and ping measured');
  sides.forEach((side, i) => {
    side.trivialHttp = httpTimes[2 * i];
    side.ping = httpTimes[2 * i + 1];
  });

  // 2. Gateway CPU per trivial execution, CPU_CLIENTS sessions back to back, builds in turn.
  for (const side of sides) side.cpu = [];
  for (const side of sides) side.rates = [];
  for (let r = 0; r < CPU_ROUNDS; r++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + r) % sides.length];
      const before = cpuSeconds(side.serve.child.pid);
      const rate = await throughput(side.serve.loaders, exec, CPU_ROUND_MS);
      const used = cpuSeconds(side.serve.child.pid) - before;
      side.cpu.push((used * 1000) / ((rate * CPU_ROUND_MS) / 1000));
      side.rates.push(rate);
    }
  }
  for (const side of sides) {
    side.cpuPerExec = median(side.cpu);
    side.perSecond = median(side.rates);
  }
  progress('gateway CPU measured');
  for (const side of sides) side.serve.child.kill('SIGTERM');

  // 3 and 4. codemux stdio of each build beside direct stdio servers: trivial beside an echo of
  // server-everything, ten call_tools beside ten direct calls to the fixture.
  for (const side of sides) side.stdio = await startStdio(side.build.root);
  const everything = await connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      stderr: 'ignore',
    }),
  );
  const fixture = await connect(
    new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'ignore' }),
  );
  const echo = (client) => client.callTool({ name: 'echo', arguments: { message: 'x' } });
  const stdioFns = [
    () => echo(everything),
    async () => {
      for (let i = 0; i < 10; i++) await echo(fixture);
    },
    ...sides.flatMap((side) => [() => exec(side.stdio, '1'), () => exec(side.stdio, TEN_CALLS)]),
  ];
  // The stdio gateways reach their steady speed only after seconds of calls (e2e.js).
  await warmFor(STDIO_WARM_MS_PER_BUILD * sides.length, stdioFns);
  const stdioTimes = await sideBySide(stdioFns, STDIO_PER_ROUND, STDIO_ROUNDS, rotatingGroups(2));
  const [echoEverything, tenDirect] = stdioTimes;
  sides.forEach((side, i) => {
    side.trivialStdio = stdioTimes[2 + 2 * i];
    side.program = stdioTimes[3 + 2 * i];
  });
  const loadAfter = uptime();
  progress('stdio measured');

  // The table: each build's figures, and each ratio's change from the build before it.
  console.log(
    `\nwhat each step cost the request path, ${os.cpus().length} cores; before: ${loadBefore}; after: ${loadAfter}`,
  );
  console.log(
    `direct baselines (stdio): server-everything echo ${fmt(echoEverything)}, ten fixture echoes ${fmt(tenDirect)}\n`,
  );
  const header = [
    'commit',
    'step',
    'trivial HTTP',
    'ping',
    'vs ping',
    'step',
    'CPU/exec (4 clients)',
    'step',
    'exec/s',
    'trivial stdio',
    'vs echo',
    'step',
    'ten calls',
    'vs direct',
    'step',
  ];
  const rows = sides.map((side, i) => {
    const before = sides[i - 1];
    const delta = (a, b, text) => (before ? signed(a - b, text) : '');
    const x = (v) => `${v.toFixed(2)}x`;
    const httpRatio = side.trivialHttp / side.ping;
    const stdioRatio = side.trivialStdio / echoEverything;
    const tenRatio = side.program / tenDirect;
    return [
      side.build.commit,
      side.build.label,
      fmt(side.trivialHttp),
      fmt(side.ping),
      x(httpRatio),
      delta(httpRatio, before && before.trivialHttp / before.ping, x),
      fmt(side.cpuPerExec),
      delta(side.cpuPerExec, before?.cpuPerExec, fmt),
      side.perSecond.toFixed(0),
      fmt(side.trivialStdio),
      x(stdioRatio),
      delta(stdioRatio, before && before.trivialStdio / echoEverything, x),
      fmt(side.program),
      x(tenRatio),
      delta(tenRatio, before && before.program / tenDirect, x),
    ];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells) => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));

  // This checkout against issue 37's targets.
  const current = sides.find((side) => side.build.root === ROOT);
  if (current) {
    console.log(`\nthis checkout (${current.build.commit}) against issue 37's targets\n`);
    const results = table();
    results.row(
      'trivial code_execution over HTTP vs MCP ping',
      ratio(current.trivialHttp, current.ping),
      `${fmt(current.trivialHttp)} vs ${fmt(current.ping)}`,
      '<= 1.3x',
      current.trivialHttp <= 1.3 * current.ping,
    );
    results.row(
      'trivial code_execution over stdio vs echo',
      ratio(current.trivialStdio, echoEverything),
      `${fmt(current.trivialStdio)} vs ${fmt(echoEverything)}`,
      '<= 2.0x',
      current.trivialStdio <= 2 * echoEverything,
    );
    results.row(
      'ten call_tools vs ten direct calls (stdio)',
      ratio(current.program, tenDirect),
      `${fmt(current.program)} vs ${fmt(tenDirect)}`,
      '<= 2.5x',
      current.program <= 2.5 * tenDirect,
    );
    results.row(
      `gateway CPU per trivial execution (${CPU_CLIENTS} clients)`,
      fmt(current.cpuPerExec),
      `median of ${CPU_ROUNDS} rounds of ${CPU_ROUND_MS} ms`,
      '<= 1.5 ms',
      current.cpuPerExec <= 1.5,
    );
    results.done();
  }
} finally {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  for (const child of children) child.kill('SIGTERM');
  for (const build of builds) build.remove();
  fs.rmSync(work, { recursive: true, force: true });
}
process.exit(0);
