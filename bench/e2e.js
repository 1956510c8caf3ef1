// codemux end-to-end benchmark (part of `npm run bench`): real `codemux serve` processes over
// Streamable HTTP and `codemux stdio`, side by side with direct SDK baselines measured in the same
// run (interleaved rounds, so machine load hits both alike). Loopback only, bounded in count and time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openStore } from '../dist/store/index.js';
import { sdkModules } from '../dist/upstream/sdk-modules.js';
import { StdioTransport } from '../dist/upstream/stdio-transport.js';
import { startRelay } from './relay.js';
import {
  cpuSeconds,
  firstTouch128MiB,
  fmt,
  freePort,
  median,
  sideBySide,
  table,
  throughput,
  waitFor,
  warmFor,
} from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const EVERYTHING = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const ROUNDS = 7;
const TEN_CALL_WARM_MS = 8000;
const PER_ROUND = 100;
const CPU_EXECUTIONS = 1500;
const CPU_ROUNDS = 6;
const THROUGHPUT_CLIENTS = 4;
const THROUGHPUT_ROUND_MS = 1500;
const THROUGHPUT_ROUNDS = 8;
const RSS_EXECUTIONS = 300;
const TIMEOUT_MS = 100;
const INSERT_RECORDS = 20_000;
const INSERT_BATCH = 500;

// The SDK's HTTP client passes one abort signal to every fetch of a session and it collects a
// listener per request (client side, not the gateway): silence the MaxListeners warning flood.
process.removeAllListeners('warning');

const results = table();
const report = results.row;
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
const range = (values) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}/s`;

async function connect(transport) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

/** Resident set size of the process `pid`, in MB. */
function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** Insert rate of the activity writer's store: records/s, batches of INSERT_BATCH in one transaction each. */
async function insertRate(dataDir) {
  const store = openStore(dataDir);
  const started = new Date().toISOString();
  const make = (i) => ({
    id: `${Date.now().toString(16)}-${String(i).padStart(8, '0')}`,
    parent_id: null,
    seq: i,
    kind: 'execution',
    surface: 'mcp',
    caller: 'admin',
    server: null,
    tool: null,
    script: null,
    language: 'javascript',
    code: "const r = call_tool('fixture', 'echo', {message: 'hello'}); r",
    input: { value: 21 },
    args: null,
    status: 'success',
    error: null,
    started_at: started,
    duration_ms: 1.25,
    logs: ['one log line'],
    response: { content: [{ type: 'text', text: 'hello' }] },
    instance_id: 'bench',
  });
  const records = Array.from({ length: INSERT_RECORDS }, (_, i) => make(i));
  const t = performance.now();
  for (let i = 0; i < records.length; i += INSERT_BATCH)
    await store.activity.insert(records.slice(i, i + INSERT_BATCH));
  const perSecond = records.length / ((performance.now() - t) / 1000);
  await store.close?.();
  return perSecond;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-'));
const fixture = { name: 'fixture', command: process.execPath, args: [FIXTURE] };
/** A gateway's config: pool 10, the fixture upstream, its own data dir (history on unless told). */
async function gatewayConfig(name, extra = {}) {
  const port = await freePort();
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      data_dir: path.join(dir, name),
      code_execution_pool_size: 10,
      mcpServers: [fixture],
      ...extra,
    }),
  );
  return { port, file };
}
const on = await gatewayConfig('history-on');
const off = await gatewayConfig('history-off', { activity_enabled: false });
const children = [on, off].map((g) =>
  spawn(process.execPath, [BIN, 'serve', '--config', g.file, '--log-level', 'warn'], {
    stdio: 'ignore',
  }),
);
const [gatewayOn, gatewayOff] = children;
const clientsToClose = [];
try {
  await waitFor(`http://127.0.0.1:${on.port}/healthz`, 400);
  await waitFor(`http://127.0.0.1:${off.port}/healthz`, 400);
  const http = async (port) => {
    const client = await connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
    clientsToClose.push(client);
    return client;
  };
  const stdio = async (command, args) => {
    const client = await connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
    clientsToClose.push(client);
    return client;
  };
  const exec = (client, code, options) =>
    client.callTool({ name: 'code_execution', arguments: { code, ...(options && { options }) } });

  const codeHttp = await http(on.port);
  const codeStdio = await stdio(process.execPath, [BIN, 'stdio', '--config', on.file]);
  const everything = await stdio(process.execPath, [EVERYTHING, 'stdio']);
  const directFixture = await stdio(process.execPath, [FIXTURE]);
  // The same fixture spawned the way codemux spawns a stdio upstream (its transport: a session of
  // its own, so the reaper can end its process group). Under load from other sessions the
  // scheduler serves that session apart from this one: printed beside the direct baseline (a
  // client spawning the server itself, which the ten-call target is judged against).
  const sdk = await sdkModules();
  const fixtureAsCodemuxSpawnsIt = () =>
    new StdioTransport(
      { command: process.execPath, args: [FIXTURE], env: sdk.getDefaultEnvironment(), cwd: ROOT },
      sdk,
      (stderr) => stderr.resume(),
      () => 17 * 1_048_576,
    );
  const ownSession = await connect(fixtureAsCodemuxSpawnsIt());
  clientsToClose.push(ownSession);
  // The design's floor (relay.js): codemux's SDK client and transport to the same fixture, with
  // sync calls from a worker thread relayed by this one, and nothing else.
  const relayClient = new ModernClient({ name: 'bench-relay', version: '1' });
  await relayClient.connect(fixtureAsCodemuxSpawnsIt());
  clientsToClose.push(relayClient);
  const relay = startRelay(relayClient, 'echo', { message: 'x' });
  // The gateways connect their upstream before anything is measured.
  await exec(codeHttp, "call_tool('fixture', 'echo', {})");
  await exec(codeStdio, "call_tool('fixture', 'echo', {})");

  // RSS first: pool 10 after RSS_EXECUTIONS executions from 10 clients (every worker used).
  const ten = await Promise.all(Array.from({ length: 10 }, () => http(on.port)));
  await Promise.all(
    ten.map(async (client) => {
      for (let i = 0; i < RSS_EXECUTIONS / 10; i++) await exec(client, '1');
    }),
  );
  const rss = rssMb(gatewayOn.pid);
  // The history-off gateway gets the same warm-up (every worker used, the JIT warm).
  const codeHttpOff = await http(off.port);
  const tenOff = await Promise.all(Array.from({ length: 10 }, () => http(off.port)));
  await Promise.all(
    tenOff.map(async (client) => {
      for (let i = 0; i < RSS_EXECUTIONS / 10; i++) await exec(client, '1');
    }),
  );
  for (let i = 0; i < 1000; i++) {
    await exec(codeHttp, '1');
    await exec(codeHttpOff, '1');
  }

  // Gateway CPU per request: every thread of the serve process, one client back to back.
  const cpuPer = async (fn, pid = gatewayOn.pid, count = CPU_EXECUTIONS) => {
    const before = cpuSeconds(pid);
    for (let i = 0; i < count; i++) await fn();
    return ((cpuSeconds(pid) - before) * 1000) / count;
  };
  const cpuPing = await cpuPer(() => codeHttp.ping());
  // Executions on the gateways with history on and off, in alternating rounds: what recording
  // costs in CPU, whatever else loads the machine.
  const cpuOn = [];
  const cpuOff = [];
  const perRound = CPU_EXECUTIONS / CPU_ROUNDS;
  const roundOn = async () =>
    cpuOn.push(await cpuPer(() => exec(codeHttp, '1'), gatewayOn.pid, perRound));
  const roundOff = async () =>
    cpuOff.push(await cpuPer(() => exec(codeHttpOff, '1'), gatewayOff.pid, perRound));
  // Each goes first every other round.
  for (let r = 0; r < CPU_ROUNDS; r++) {
    if (r % 2) await roundOff();
    await roundOn();
    if (!(r % 2)) await roundOff();
  }
  const cpuExec = cpuOn.reduce((a, b) => a + b) / CPU_ROUNDS;
  const cpuExecOff = cpuOff.reduce((a, b) => a + b) / CPU_ROUNDS;

  // Throughput with history on and off, THROUGHPUT_CLIENTS sessions each, alternating rounds.
  const clientsOn = await Promise.all(
    Array.from({ length: THROUGHPUT_CLIENTS }, () => http(on.port)),
  );
  const clientsOff = await Promise.all(
    Array.from({ length: THROUGHPUT_CLIENTS }, () => http(off.port)),
  );
  await throughput(clientsOff, exec, 500);
  const rateOn = [];
  const rateOff = [];
  for (let r = 0; r < THROUGHPUT_ROUNDS; r++) {
    if (r % 2) rateOn.push(await throughput(clientsOn, exec, THROUGHPUT_ROUND_MS));
    rateOff.push(await throughput(clientsOff, exec, THROUGHPUT_ROUND_MS));
    if (!(r % 2)) rateOn.push(await throughput(clientsOn, exec, THROUGHPUT_ROUND_MS));
  }
  const perSecondOn = median(rateOn);
  const perSecondOff = median(rateOff);
  const recordingCost = 1 - perSecondOn / perSecondOff;

  const [trivialHttp, ping] = await sideBySide(
    [() => exec(codeHttp, '1'), () => codeHttp.ping()],
    PER_ROUND,
    ROUNDS,
  );
  // The same execution from a 2026-07-28 client (no session: a server instance per request)
  // beside the 2025 session above, in latency and in gateway CPU.
  const modern = new ModernClient(
    { name: 'bench-modern', version: '1' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await modern.connect(new ModernHttp(new URL(`http://127.0.0.1:${on.port}/mcp`)));
  clientsToClose.push(modern);
  for (let i = 0; i < 300; i++) await exec(modern, '1');
  const [trivialModern, trivialSession] = await sideBySide(
    [() => exec(modern, '1'), () => exec(codeHttp, '1')],
    PER_ROUND,
    ROUNDS,
  );
  const cpuModern = [];
  const cpuSession = [];
  for (let r = 0; r < CPU_ROUNDS; r++) {
    cpuModern.push(await cpuPer(() => exec(modern, '1'), gatewayOn.pid, perRound));
    cpuSession.push(await cpuPer(() => exec(codeHttp, '1'), gatewayOn.pid, perRound));
  }
  const cpuStateless = median(cpuModern);
  const cpuSessionful = median(cpuSession);
  const [trivialStdio, echoEverything] = await sideBySide(
    [
      () => exec(codeStdio, '1'),
      () => everything.callTool({ name: 'echo', arguments: { message: 'x' } }),
    ],
    PER_ROUND,
    ROUNDS,
  );
  const tenCalls = "for (let i = 0; i < 10; i++) call_tool('fixture', 'echo', {message: 'x'}); 1";
  const echo = (client) => () => client.callTool({ name: 'echo', arguments: { message: 'x' } });
  const tenOf = (fn) => async () => {
    for (let i = 0; i < 10; i++) await fn();
  };
  const tenCallFns = [
    () => exec(codeStdio, tenCalls),
    tenOf(echo(ownSession)),
    tenOf(echo(directFixture)),
    () => relay.program(10),
    () => codeStdio.ping(),
    () => exec(codeStdio, '1'),
  ];
  // The stdio gateway and the relay reach their steady speed only after seconds of calls (V8
  // optimizes their code as it runs; a ten-call program takes 3-4x less after 10 s than in its
  // first second), direct calls after about one: all are warmed alike first.
  await warmFor(TEN_CALL_WARM_MS, tenCallFns);
  const [programStdio, tenDirect, tenDirectSdk, tenRelayed, pingStdio, trivialBeside] =
    await sideBySide(tenCallFns, 30, ROUNDS);
  // The design's floor for the program: the MCP round trip to codemux (a ping) and ten calls
  // through the bare relay (its worker's job hand-off included); and what the program would
  // take if its calls cost only the relay: a trivial execution instead of the ping.
  const floorTen = pingStdio + tenRelayed;
  const relayOnlyTen = trivialBeside + tenRelayed;
  const [directEcho, directEchoSdk] = await sideBySide(
    [echo(ownSession), echo(directFixture)],
    PER_ROUND,
    ROUNDS,
  );
  // What one call_tool adds over a direct call: the program minus the trivial run measured in
  // its rounds, a tenth, minus a direct call.
  const perCallAdded = (programStdio - trivialBeside) / 10 - directEchoSdk;

  // Stops over HTTP: an endless loop past its timeout, and a memory bomb.
  const late = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const r = await exec(codeHttp, 'while (true) {}', { timeout_ms: TIMEOUT_MS });
    if (!JSON.stringify(r).includes('TIMEOUT')) throw new Error('expected TIMEOUT');
    late.push(performance.now() - t - TIMEOUT_MS);
  }
  const bombs = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = await exec(codeHttp, 'let a = []; while (true) a.push(new Array(100000).fill(1));');
    if (!JSON.stringify(r).includes('MEMORY_LIMIT_EXCEEDED'))
      throw new Error('expected MEMORY_LIMIT_EXCEEDED');
    bombs.push(performance.now() - t);
  }
  // What the bombs had to touch, measured right after them (the bench process, same machine state).
  const touch = firstTouch128MiB();
  const inserts = await insertRate(path.join(dir, 'insert-rate'));

  console.log(
    `\ncodemux end to end (real codemux serve / codemux stdio), ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  report(
    'trivial code_execution over Streamable HTTP',
    fmt(trivialHttp),
    `MCP ping, same session ${fmt(ping)} (${ratio(trivialHttp, ping)})`,
    '<= 1.5x',
    trivialHttp <= 1.5 * ping,
  );
  report(
    'trivial code_execution, 2026-07-28 client (stateless)',
    fmt(trivialModern),
    `2025 session ${fmt(trivialSession)} (${ratio(trivialModern, trivialSession)}); gateway CPU ${fmt(cpuStateless)} vs ${fmt(cpuSessionful)} (${ratio(cpuStateless, cpuSessionful)})`,
    'cheaper than the session',
    cpuStateless <= cpuSessionful,
  );
  report(
    'trivial code_execution over codemux stdio',
    fmt(trivialStdio),
    `everything echo, stdio ${fmt(echoEverything)} (${ratio(trivialStdio, echoEverything)})`,
    '<= 2.0x',
    trivialStdio <= 2 * echoEverything,
  );
  report(
    '10 sequential call_tools in one program (stdio)',
    fmt(programStdio),
    `10 direct tools/calls ${fmt(tenDirectSdk)} (${ratio(programStdio, tenDirectSdk)}); fixture in a session of its own as codemux spawns it ${fmt(tenDirect)} (${ratio(programStdio, tenDirect)}); the design's floor ${fmt(floorTen)} (${ratio(floorTen, tenDirectSdk)}): 10 calls through a bare relay ${fmt(tenRelayed)} + a ping over codemux stdio ${fmt(pingStdio)}; with a trivial execution ${fmt(trivialBeside)} instead of the ping ${fmt(relayOnlyTen)} (${ratio(relayOnlyTen, tenDirectSdk)})`,
    '<= 2.0x',
    programStdio <= 2 * tenDirectSdk,
  );
  report(
    'one call_tool over a direct call (end to end)',
    fmt(Math.max(0, perCallAdded)),
    `direct tools/call ${fmt(directEchoSdk)} (fixture in a session of its own ${fmt(directEcho)}); a bare relay adds ${fmt(Math.max(0, (tenRelayed - tenDirectSdk) / 10))}`,
    '<= 120 us',
    perCallAdded <= 0.12,
  );
  report(
    'gateway CPU per trivial execution over HTTP',
    fmt(cpuExec),
    `per MCP ping ${fmt(cpuPing)} (/proc utime+stime)`,
    '<= 2.5 ms',
    cpuExec <= 2.5,
  );
  report(
    `executions/s, ${THROUGHPUT_CLIENTS} HTTP clients`,
    `${perSecondOn.toFixed(0)}/s`,
    `history off ${perSecondOff.toFixed(0)}/s`,
    '(reported)',
    true,
  );
  report(
    'activity history cost on throughput',
    `${(recordingCost * 100).toFixed(1)}%`,
    `medians of ${THROUGHPUT_ROUNDS} rounds, on ${range(rateOn)}, off ${range(rateOff)}`,
    '<= 5% slower',
    recordingCost <= 0.05,
  );
  report(
    'activity history cost in gateway CPU',
    `${((cpuExec / cpuExecOff - 1) * 100).toFixed(1)}%`,
    `on ${fmt(cpuExec)} vs off ${fmt(cpuExecOff)} per execution`,
    '<= 5% more',
    cpuExec <= 1.05 * cpuExecOff,
  );
  report(
    'activity writer insert rate (SQLite)',
    `${(inserts / 1000).toFixed(0)}k records/s`,
    `${INSERT_RECORDS} records, batches of ${INSERT_BATCH}`,
    '(reported)',
    true,
  );
  report(
    `gateway RSS, pool 10, after ${RSS_EXECUTIONS} executions`,
    `${rss.toFixed(0)} MB`,
    'VmRSS of the serve process',
    '<= 250 MB',
    rss <= 250,
  );
  report(
    'timeout stop past the deadline, over HTTP',
    fmt(median(late)),
    `max ${fmt(Math.max(...late))}, timeout_ms ${TIMEOUT_MS}`,
    '<= 50 ms',
    median(late) <= 50,
  );
  report(
    'memory bomb stopped, over HTTP (median)',
    fmt(median(bombs)),
    `max ${fmt(Math.max(...bombs))}; 128 MiB first touch ${fmt(touch)}`,
    '<= 250 ms',
    median(bombs) <= 250,
  );
  results.done();
  await relay.close();
  await Promise.all(clientsToClose.map((c) => c.close().catch(() => {})));
} finally {
  for (const child of children) child.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
