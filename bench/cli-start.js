// codemux CLI start-up benchmark (`npm run bench:cli`, not part of `npm run bench`): the wall
// time of short CLI runs that tests spawn by the hundred, against `node -e 0` measured in the
// same rounds. Standalone: the config names a port nobody listens on, so no daemon answers.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const RUNS = Number(process.env.CODEMUX_BENCH_RUNS ?? 15);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-cli-'));
const configFile = path.join(dir, 'mcp_config.json');
fs.writeFileSync(
  configFile,
  JSON.stringify({
    listen: `127.0.0.1:${await freePort()}`,
    mcpServers: [{ name: 'off', command: 'node', args: ['server.js'], enabled: false }],
  }),
);
// HOME and CODEMUX_CONFIG point into the scratch directory: nothing of the user's is read.
const env = { ...process.env, HOME: dir, CODEMUX_CONFIG: configFile };
delete env.CODEMUX_API_KEY;

const cases = [
  ['node -e 0 (baseline)', ['-e', '0']],
  ['codemux --version', [BIN, '--version']],
  ['codemux --help', [BIN, '--help']],
  ['codemux servers list --help', [BIN, 'servers', 'list', '--help']],
  ['codemux servers list -o json (standalone)', [BIN, 'servers', 'list', '-o', 'json']],
];

function once(args) {
  const t = performance.now();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = performance.now() - t;
  if (result.status !== 0) {
    throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return ms;
}

try {
  for (const [, args] of cases) once(args); // warm the file cache
  const times = cases.map(() => []);
  // Alternating rounds, reversed every other one, so a load spike hits every case alike.
  for (let r = 0; r < RUNS; r++) {
    const order = cases.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) times[i].push(once(cases[i][1]));
  }
  const medians = times.map(median);
  const base = medians[0];
  console.log(
    `CLI start: median wall time of ${RUNS} runs each, ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, Node ${process.version}\n`,
  );
  for (const [i, [name]] of cases.entries()) {
    const ratio = i === 0 ? 'baseline' : `${(medians[i] / base).toFixed(2)}x node -e 0`;
    console.log(`${name.padEnd(44)} ${`${medians[i].toFixed(0)} ms`.padStart(9)}   ${ratio}`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
