// Per-call breakdown of sequential call_tools through `codemux stdio` (node bench/calls.js; needs
// `npm run build`). A program of N call_tools against the stdio fixture's echo is measured side by
// side, in alternating rounds, with N direct tools/calls to the same fixture, spawned two ways:
// by the SDK's stdio client (in this process's session) and by codemux's own transport (in a
// session of its own, as codemux spawns every stdio upstream). For each it prints the wall time
// per call and the CPU each thread or process spent per call (from /proc: the gateway's main
// thread, its sandbox workers, the upstream child, this client process).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sdkModules } from '../dist/upstream/sdk-modules.js';
import { StdioTransport } from '../dist/upstream/stdio-transport.js';
import { median } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const CALLS = Number(process.env.CALLS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 12);
const PER_ROUND = Number(process.env.PER_ROUND ?? 30);
/** USER_HZ of /proc/<pid>/stat. */
const TICKS_PER_S = 100;

/** [user, system] CPU seconds of a process or thread, from its stat file. */
function cpu(statFile) {
  const stat = fs.readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) / TICKS_PER_S, Number(fields[12]) / TICKS_PER_S];
}

/** CPU of the gateway's threads (main, workers) and of its children, by part. */
function gatewayCpu(pid) {
  const parts = { main: [0, 0], workers: [0, 0], upstream: [0, 0] };
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const [user, system] = cpu(`/proc/${pid}/task/${tid}/stat`);
    const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    // Node names its worker threads after the process; its own helpers (libuv, V8) otherwise.
    const part = Number(tid) === pid ? 'main' : comm === 'node' ? 'workers' : undefined;
    if (!part) continue;
    parts[part][0] += user;
    parts[part][1] += system;
  }
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  for (const child of children ? children.split(/\s+/) : []) {
    const [user, system] = cpu(`/proc/${child}/stat`);
    parts.upstream[0] += user;
    parts.upstream[1] += system;
  }
  return parts;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-calls-'));
const config = path.join(dir, 'config.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    data_dir: path.join(dir, 'data'),
    mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE] }],
  }),
);
const clients = [];
async function connect(transport) {
  const client = new Client({ name: 'bench-calls', version: '1' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
try {
  const gatewayTransport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', '--config', config],
    stderr: 'ignore',
  });
  const codemux = await connect(gatewayTransport);
  const sdkSpawnTransport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE],
    stderr: 'ignore',
  });
  const sdkSpawn = await connect(sdkSpawnTransport);
  const sdk = await sdkModules();
  const ownSessionTransport = new StdioTransport(
    { command: process.execPath, args: [FIXTURE], env: sdk.getDefaultEnvironment(), cwd: ROOT },
    sdk,
    (stderr) => stderr.resume(),
    () => 17 * 1_048_576,
  );
  const ownSession = await connect(ownSessionTransport);

  const program = `for (let i = 0; i < ${CALLS}; i++) call_tool('fixture', 'echo', {message: 'x'}); 1`;
  const exec = async (code) => {
    const result = await codemux.callTool({ name: 'code_execution', arguments: { code } });
    if (result.isError) throw new Error(JSON.stringify(result));
  };
  const direct = (client) => async () => {
    for (let i = 0; i < CALLS; i++)
      await client.callTool({ name: 'echo', arguments: { message: 'x' } });
  };
  const gatewayPid = gatewayTransport.pid;
  const sides = [
    {
      name: `codemux stdio, ${CALLS} call_tools in one program`,
      run: () => exec(program),
      cpu: () => ({ ...gatewayCpu(gatewayPid), client: cpu('/proc/self/stat') }),
    },
    {
      name: `${CALLS} direct calls, fixture in its own session (as codemux spawns it)`,
      run: direct(ownSession),
      cpu: () => ({
        upstream: cpu(`/proc/${ownSessionTransport.pid}/stat`),
        client: cpu('/proc/self/stat'),
      }),
    },
    {
      name: `${CALLS} direct calls, fixture spawned by the SDK client`,
      run: direct(sdkSpawn),
      cpu: () => ({
        upstream: cpu(`/proc/${sdkSpawnTransport.pid}/stat`),
        client: cpu('/proc/self/stat'),
      }),
    },
    { name: 'codemux stdio, trivial program', run: () => exec('1') },
  ];
  for (let i = 0; i < 30; i++) for (const side of sides) await side.run();
  for (const side of sides) {
    side.rounds = [];
    side.spent = {};
  }
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...sides].reverse() : sides;
    for (const side of order) {
      const before = side.cpu?.();
      const t = performance.now();
      for (let i = 0; i < PER_ROUND; i++) await side.run();
      side.rounds.push((performance.now() - t) / PER_ROUND);
      if (!before) continue;
      for (const [part, [user, system]] of Object.entries(side.cpu())) {
        side.spent[part] ??= [0, 0];
        const spent = side.spent[part];
        spent[0] += user - before[part][0];
        spent[1] += system - before[part][1];
      }
    }
  }
  const [program10, ownDirect, sdkDirect, trivial] = sides.map((s) => median(s.rounds));
  const perCall = (s) => (s * 1000) / CALLS;
  console.log(
    `\nsequential call_tools, ${CALLS} a program, ${ROUNDS} alternating rounds of ${PER_ROUND}; ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  for (const side of sides) {
    const ms = median(side.rounds);
    console.log(
      `${side.name.padEnd(70)} ${ms.toFixed(2)} ms (rounds ${Math.min(...side.rounds).toFixed(2)}-${Math.max(...side.rounds).toFixed(2)})`,
    );
    if (!side.cpu) continue;
    const calls = ROUNDS * PER_ROUND * CALLS;
    const parts = Object.entries(side.spent).map(
      ([part, [user, system]]) =>
        `${part} ${((user * 1e6) / calls).toFixed(0)}+${((system * 1e6) / calls).toFixed(0)}`,
    );
    console.log(`${''.padEnd(4)}CPU per call, us user+system: ${parts.join(', ')}`);
  }
  console.log(
    `\nratio ${(program10 / ownDirect).toFixed(2)}x against the fixture in its own session, ${(program10 / sdkDirect).toFixed(2)}x against the SDK's spawn`,
  );
  console.log(
    `per call: ${perCall(program10 - trivial).toFixed(0)} us in a program (its trivial run ${(trivial * 1000).toFixed(0)} us taken off), direct ${perCall(ownDirect).toFixed(0)} us (own session) / ${perCall(sdkDirect).toFixed(0)} us (SDK spawn)`,
  );
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
