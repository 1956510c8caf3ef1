// codemux code tools benchmark (part of `npm run bench`): a code tool call over Streamable HTTP
// against a trivial code_execution over the same session. Target: within 1.2x.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fmt, freePort, median, table, waitFor } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const ROUNDS = 7;
const PER_ROUND = 100;
const KEY = 'bench-admin-key';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-code-tools-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const configFile = path.join(dir, 'mcp_config.json');
fs.writeFileSync(
  configFile,
  JSON.stringify({ listen: `127.0.0.1:${port}`, api_key: KEY, mcpServers: [] }),
);
const child = spawn(
  process.execPath,
  [BIN, 'serve', '--config', configFile, '--log-level', 'warn'],
  {
    stdio: 'ignore',
  },
);
const rest = (method, route, body) =>
  fetch(`${base}/api/v1/code-tools${route}`, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
try {
  await waitFor(`${base}/healthz`, 200);
  await rest('POST', '', { name: 'format_currency' });
  await rest('POST', '/format_currency/params', {
    name: 'amount',
    type: 'decimal',
    required: true,
  });
  await rest('POST', '/format_currency/params', {
    name: 'currency_code',
    type: 'string',
    required: true,
  });
  await rest('PUT', '/format_currency', {
    code: "new Intl.NumberFormat('en-US', {style: 'currency', currency: currency_code}).format(amount)",
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  const trivial = () => client.callTool({ name: 'code_execution', arguments: { code: '1' } });
  const codeTool = () =>
    client.callTool({
      name: 'format_currency',
      arguments: { amount: 1234.5, currency_code: 'USD' },
    });
  for (let i = 0; i < 30; i++) await Promise.all([trivial(), codeTool()]);
  // Interleaved rounds, so load from other work on the machine hits both alike.
  const trivialRounds = [];
  const toolRounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const [fn, rounds] of [
      [trivial, trivialRounds],
      [codeTool, toolRounds],
    ]) {
      const t = performance.now();
      for (let i = 0; i < PER_ROUND; i++) await fn();
      rounds.push((performance.now() - t) / PER_ROUND);
    }
  }
  const a = median(trivialRounds);
  const b = median(toolRounds);
  const results = table();
  console.log(`\ncodemux code tools (Streamable HTTP, one session), ${os.cpus().length} cores\n`);
  results.row(
    'code tool call (format_currency, Intl)',
    fmt(b),
    `trivial code_execution ${fmt(a)} (${(b / a).toFixed(2)}x)`,
    '<= 1.2x',
    b <= 1.2 * a,
  );
  results.done();
  await client.close();
} finally {
  child.kill('SIGTERM');
}
process.exit(0);
