// codemux catalog and code mode benchmark (part of `npm run bench`): catalog search and describe
// over a real 300-tool upstream, and an execute run with 4 parallel awaited calls.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveConfig } from '../dist/config/index.js';
import { createRuntime } from '../dist/execution/index.js';
import { silentLogger } from '../dist/util/logger.js';
import { fmt, median, table } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MANY = path.join(ROOT, 'test', 'fixtures', 'many-tools-server.mjs');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const QUERIES = [
  'create a calendar event',
  'delete a DNS record',
  'weather forecast for a city',
  'export invoice',
  'stock quote',
];

const results = table();
const report = results.row;

const config = resolveConfig(
  {
    mcpServers: [
      { name: 'many', command: process.execPath, args: [MANY, '300'] },
      { name: 'fixture', command: process.execPath, args: [FIXTURE] },
    ],
  },
  { baseDir: ROOT },
);
const runtime = createRuntime(config, silentLogger(), { live: true, warmWorkers: 2 });
await runtime.start();
for (let i = 0; i < 200 && runtime.registry.status().some((s) => s.state !== 'ready'); i++) {
  await new Promise((r) => setTimeout(r, 50));
}
const all = () => true;

// The first search builds the index (once per change of the tool set).
let t = performance.now();
runtime.catalog.run('tools.search', { query: 'warm up' }, all);
const indexBuild = performance.now() - t;
const searches = [];
for (let i = 0; i < 500; i++) {
  t = performance.now();
  runtime.catalog.run('tools.search', { query: QUERIES[i % QUERIES.length] }, all);
  searches.push(performance.now() - t);
}
const describes = [];
const names = runtime.registry.tools('many').map((tool) => tool.name);
for (let i = 0; i < 500; i++) {
  t = performance.now();
  runtime.catalog.run('tools.describe', { namespace: 'many', name: names[i % names.length] }, all);
  describes.push(performance.now() - t);
}

await runtime.execute.execute({ code: 'await tools.fixture.sleep({ms: 1}); return 1' });
const parallel = [];
for (let i = 0; i < 5; i++) {
  const out = await runtime.execute.execute({
    code: 'const t = Date.now(); await Promise.all([1, 2, 3, 4].map(() => tools.fixture.sleep({ms: 50}))); return Date.now() - t',
  });
  parallel.push(out.result.result);
}
await runtime.stop();

console.log(`\ncodemux catalog and code mode (300-tool upstream)\n`);
report(
  'catalog.tools.search over 300 tools (median)',
  fmt(median(searches)),
  `index built once in ${fmt(indexBuild)}`,
  '<= 1 ms',
  median(searches) <= 1,
);
report(
  'catalog.tools.describe + TypeScript (median)',
  fmt(median(describes)),
  '',
  '<= 2 ms',
  median(describes) <= 2,
);
report(
  'execute: 4 parallel awaited calls of 50 ms',
  fmt(median(parallel)),
  `the sum of the calls 200 ms (${(median(parallel) / 200).toFixed(2)}x)`,
  'about 1 call',
  median(parallel) < 100,
);
results.done();
process.exit(0);
