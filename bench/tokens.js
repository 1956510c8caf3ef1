// `npm run bench:tokens`: what code mode saves in model tokens, on a fixed task suite run for
// real. Each task is solved twice against the same local MCP servers (the shop's order
// database, server-filesystem, server-memory): by direct tool calling (every tool's schema in
// the context of every turn, every result back into the context) and through codemux's
// code_execution (its tool, a program that looks up the schemas of the tools it will call, the
// program, the final value). Both must reach the same answer.
// Tokens are counted with gpt-tokenizer (o200k_base) as a model is billed: the whole context of
// every model turn, plus what the turn writes. No model runs: the trajectories are scripts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { countTokens } from 'gpt-tokenizer';
import { freePort, waitFor } from './report.js';
import { TASKS } from './tokens/tasks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const MODULES = path.join(ROOT, 'node_modules', '@modelcontextprotocol');
/** Tokens a chat format spends around each message (role, separators), as OpenAI documents ~3-4. */
const PER_MESSAGE = 4;
const SYSTEM =
  'You are an assistant for an online shop. Use the tools to answer the user precisely; answer with the result only.';

// A fixed place: its path is in prompts and programs, so the counts do not move between runs
// (BENCH_TOKENS_DIR elsewhere, for the test that runs this beside other runs).
const dir = process.env.BENCH_TOKENS_DIR ?? path.join(os.tmpdir(), 'codemux-bench-tokens');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir);
const notes = path.join(dir, 'notes');
fs.mkdirSync(notes);
for (let i = 1; i <= 6; i++) {
  const lines = Array.from(
    { length: 8 + i * 5 },
    (_, n) => `- note ${i}.${n}: follow up with the supplier about batch ${i * 100 + n}`,
  );
  fs.writeFileSync(path.join(notes, `week-${i}.md`), `# Week ${i}\n\n${lines.join('\n')}\n`);
}
fs.writeFileSync(path.join(notes, 'todo.txt'), 'not markdown\n');
const env = { notes };

/** The servers as an MCP client (or codemux) starts them; `memory` gets its own file per side. */
const servers = (memoryFile) => [
  {
    name: 'shop',
    command: process.execPath,
    args: [path.join(ROOT, 'bench', 'tokens', 'shop-server.mjs')],
  },
  {
    name: 'filesystem',
    command: process.execPath,
    args: [path.join(MODULES, 'server-filesystem', 'dist', 'index.js'), dir],
  },
  {
    name: 'memory',
    command: process.execPath,
    args: [path.join(MODULES, 'server-memory', 'dist', 'index.js')],
    env: { MEMORY_FILE_PATH: memoryFile },
  },
];

/** One model conversation: what each turn reads and writes, in tokens. */
class Transcript {
  constructor(tools, prompt) {
    this.fixed =
      countTokens(SYSTEM) +
      countTokens(JSON.stringify(tools)) +
      PER_MESSAGE * 2 +
      countTokens(prompt);
    this.history = 0;
    this.tokens = 0;
    this.turns = 0;
  }
  /** A model turn: it reads the whole context and writes `output`; `results` join the context. */
  step(output, results = []) {
    const written = countTokens(output) + PER_MESSAGE;
    this.tokens += this.fixed + this.history + written;
    this.turns++;
    this.history += written + results.reduce((n, r) => n + countTokens(r) + PER_MESSAGE, 0);
  }
}

/** The tools a program calls, as [server, tool]: what a model looks up before writing it. */
function toolsUsed(code) {
  const used = new Set();
  for (const m of code.matchAll(/\b(?:get|all)\('([a-z_]+)'/g)) used.add(`shop.${m[1]}`);
  for (const m of code.matchAll(/\btools\.([a-z_]+)\.([a-z_]+)\(/g)) used.add(`${m[1]}.${m[2]}`);
  return [...used].map((t) => t.split('.'));
}

/** The discovery program a model runs first: the schemas of the tools it is about to call. */
const describeProgram = (used) =>
  `return await Promise.all(${JSON.stringify(used)}.map(([namespace, name]) => catalog.tools.describe({ namespace, name })));`;

const resultText = (result) => (result.content ?? []).map((c) => c.text ?? '').join('\n');

/** A direct trajectory's turns: each turn's tool calls go to the servers at once. */
function directTurns(clients, transcript) {
  return {
    async turn(calls, format = 'json') {
      const results = await Promise.all(
        calls.map(([server, name, args]) =>
          clients.get(server).callTool({ name, arguments: args }),
        ),
      );
      for (const [i, r] of results.entries())
        if (r.isError) throw new Error(`${calls[i][0]}.${calls[i][1]}: ${resultText(r)}`);
      const texts = results.map(resultText);
      transcript.step(
        JSON.stringify(
          calls.map(([server, name, args]) => ({ name: `${server}__${name}`, arguments: args })),
        ),
        texts,
      );
      return format === 'json' ? texts.map((t) => JSON.parse(t)) : texts;
    },
  };
}

async function connectStdio(server) {
  const client = new Client({ name: 'bench-tokens', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...process.env, ...server.env },
      stderr: 'ignore',
    }),
  );
  return client;
}

const children = [];
const clients = [];
try {
  // Direct: the client connects to every server itself and puts every tool in the context.
  const direct = new Map();
  for (const server of servers(path.join(dir, 'memory-direct.jsonl'))) {
    const client = await connectStdio(server);
    clients.push(client);
    direct.set(server.name, client);
  }
  const directTools = [];
  for (const [name, client] of direct)
    for (const t of (await client.listTools()).tools)
      directTools.push({
        name: `${name}__${t.name}`,
        description: t.description,
        input_schema: t.inputSchema,
      });

  // Code mode: a real codemux serve over the same servers; the client sees its one tool.
  const port = await freePort();
  const configFile = path.join(dir, 'codemux.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      data_dir: path.join(dir, 'data'),
      tool_pinning: 'off',
      mcpServers: servers(path.join(dir, 'memory-code.jsonl')),
    }),
  );
  children.push(
    spawn(process.execPath, [BIN, 'serve', '--config', configFile, '--log-level', 'warn'], {
      stdio: 'ignore',
    }),
  );
  await waitFor(`http://127.0.0.1:${port}/healthz`, 400);
  const codemux = new Client({ name: 'bench-tokens', version: '1' });
  await codemux.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  clients.push(codemux);
  // Its description lists the servers' tools once they are connected.
  for (let i = 0; i < 100; i++) {
    const { json } = await fetch(`http://127.0.0.1:${port}/api/v1/servers`, {
      headers: { 'x-api-key': fs.readFileSync(path.join(dir, 'data', 'api_key'), 'utf8').trim() },
    }).then(async (r) => ({ json: await r.json() }));
    if (json.value.servers.every((s) => s.state === 'ready')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const codeTools = (await codemux.listTools()).tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema,
  }));

  const rows = [];
  for (const task of TASKS) {
    const d = new Transcript(directTools, task.prompt);
    const directAnswer = await task.direct(directTurns(direct, d), env);
    d.step(JSON.stringify(directAnswer));

    const c = new Transcript(codeTools, task.prompt);
    const code = typeof task.code === 'function' ? task.code(env) : task.code;
    // First the schemas of the tools it will call (the description names them, without arguments).
    const lookup = describeProgram(toolsUsed(code));
    const described = await codemux.callTool({
      name: 'code_execution',
      arguments: { code: lookup },
    });
    if (!described.structuredContent?.ok)
      throw new Error(`${task.name}: describe failed: ${resultText(described)}`);
    c.step(JSON.stringify({ name: 'code_execution', arguments: { code: lookup } }), [
      resultText(described),
    ]);
    const result = await codemux.callTool({ name: 'code_execution', arguments: { code } });
    const envelope = result.structuredContent;
    if (!envelope?.ok) throw new Error(`${task.name}: the program failed: ${resultText(result)}`);
    c.step(JSON.stringify({ name: 'code_execution', arguments: { code } }), [resultText(result)]);
    c.step(JSON.stringify(envelope.value));

    if (!isDeepStrictEqual(directAnswer, envelope.value)) {
      throw new Error(
        `${task.name}: the trajectories disagree: direct ${JSON.stringify(directAnswer)}, code mode ${JSON.stringify(envelope.value)}`,
      );
    }
    rows.push({ task: task.name, direct: d, code: c, answer: directAnswer });
  }

  const total = (side) => rows.reduce((n, r) => n + r[side].tokens, 0);
  const pad = (s, n) => String(s).padEnd(n);
  const num = (n) => n.toLocaleString('en-US');
  console.log(
    `\ntoken benchmark: ${TASKS.length} tasks, ${directTools.length} tools in the direct context, gpt-tokenizer o200k_base\n`,
  );
  console.log(
    `${pad('task', 40)}${pad('turns direct/code', 20)}${pad('tokens direct', 16)}${pad('tokens code mode', 18)}ratio`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.task, 40)}${pad(`${r.direct.turns}/${r.code.turns}`, 20)}${pad(num(r.direct.tokens), 16)}${pad(num(r.code.tokens), 18)}${(r.code.tokens / r.direct.tokens).toFixed(2)}`,
    );
  }
  const n = total('code');
  const m = total('direct');
  console.log(
    `\ntokens: code mode ${n} vs direct ${m} (${(n / m).toFixed(2)} of direct) over ${rows.length} tasks`,
  );
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  for (const child of children) child.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
}
