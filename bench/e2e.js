// codemux end-to-end benchmark (part of `npm run bench`): the gateway over Streamable HTTP and over
// stdio against direct SDK tools/call baselines. Everything runs on loopback, bounded in count and time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fmt, median, table } from './report.js';

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
const ROUNDS = 5;
const PER_ROUND = 100;
const THROUGHPUT_CLIENTS = 20;
const THROUGHPUT_MS = 5000;

const results = table();
const report = results.row;

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not answer`);
}

async function connect(transport) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

/** Median per-call time of `fn` over ROUNDS rounds of PER_ROUND sequential calls. */
async function timed(fn, perRound = PER_ROUND) {
  for (let i = 0; i < 20; i++) await fn();
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    for (let i = 0; i < perRound; i++) await fn();
    rounds.push((performance.now() - t) / perRound);
  }
  return median(rounds);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-'));
const port = await freePort();
const configFile = path.join(dir, 'mcp_config.json');
fs.writeFileSync(
  configFile,
  JSON.stringify({
    listen: `127.0.0.1:${port}`,
    code_execution_pool_size: 10,
    mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE] }],
  }),
);
const everythingPort = await freePort();
const children = [
  spawn(process.execPath, [BIN, 'serve', '--config', configFile, '--log-level', 'warn'], {
    stdio: 'ignore',
  }),
  spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(everythingPort) },
    stdio: 'ignore',
  }),
];
try {
  await waitFor(`http://127.0.0.1:${port}/healthz`);
  await waitFor(`http://127.0.0.1:${everythingPort}/mcp`);

  const codeHttp = await connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
  );
  const codeStdio = await connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'stdio', '--config', configFile],
    }),
  );
  const directHttp = await connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${everythingPort}/mcp`)),
  );
  const directStdio = await connect(
    new StdioClientTransport({ command: process.execPath, args: [FIXTURE] }),
  );
  const exec = (client, code) => client.callTool({ name: 'code_execution', arguments: { code } });
  // Let the gateways connect their upstream before measuring.
  await exec(codeHttp, "call_tool('fixture', 'echo', {})");
  await exec(codeStdio, "call_tool('fixture', 'echo', {})");

  const trivialHttp = await timed(() => exec(codeHttp, '1'));
  const directCallHttp = await timed(() =>
    directHttp.callTool({ name: 'echo', arguments: { message: 'x' } }),
  );
  const trivialStdio = await timed(() => exec(codeStdio, '1'));
  const directCallStdio = await timed(() =>
    directStdio.callTool({ name: 'echo', arguments: { message: 'x' } }),
  );
  const tenCalls = "for (let i = 0; i < 10; i++) call_tool('fixture', 'echo', {message: 'x'}); 1";
  const programHttp = await timed(() => exec(codeHttp, tenCalls), 20);
  const programStdio = await timed(() => exec(codeStdio, tenCalls), 20);
  const tenDirect = 10 * directCallStdio;

  // Throughput: 20 clients, each with its own session, trivial executions for THROUGHPUT_MS.
  const clients = await Promise.all(
    Array.from({ length: THROUGHPUT_CLIENTS }, () =>
      connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`))),
    ),
  );
  let done = 0;
  const until = performance.now() + THROUGHPUT_MS;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        await exec(client, '1');
        done++;
      }
    }),
  );
  const perSecond = done / (THROUGHPUT_MS / 1000);

  console.log(
    `\ncodemux end to end (gateway over Streamable HTTP and stdio), ${os.cpus().length} cores\n`,
  );
  report(
    'trivial code_execution over HTTP',
    fmt(trivialHttp),
    `direct HTTP tools/call ${fmt(directCallHttp)} (${(trivialHttp / directCallHttp).toFixed(2)}x)`,
    '<= 1.5x',
    trivialHttp <= 1.5 * directCallHttp,
  );
  report(
    'trivial code_execution over stdio',
    fmt(trivialStdio),
    `direct stdio tools/call ${fmt(directCallStdio)} (${(trivialStdio / directCallStdio).toFixed(2)}x)`,
    '<= 1.5x',
    trivialStdio <= 1.5 * directCallStdio,
  );
  report(
    '10 calls in one program, over HTTP',
    fmt(programHttp),
    `10 direct calls ${fmt(tenDirect)} (${(programHttp / tenDirect).toFixed(2)}x)`,
    '<= 0.5x',
    programHttp <= 0.5 * tenDirect,
  );
  report(
    '10 calls in one program, over stdio',
    fmt(programStdio),
    `10 direct calls ${fmt(tenDirect)} (${(programStdio / tenDirect).toFixed(2)}x)`,
    '<= 0.5x',
    programStdio <= 0.5 * tenDirect,
  );
  report(
    `throughput, ${THROUGHPUT_CLIENTS} HTTP clients`,
    `${perSecond.toFixed(0)}/s`,
    `${done} trivial executions in ${THROUGHPUT_MS / 1000} s`,
    '>= 500/s',
    perSecond >= 500,
  );
  results.done();
  await Promise.all(
    [codeHttp, codeStdio, directHttp, directStdio, ...clients].map((c) => c.close()),
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
}
process.exit(0);
