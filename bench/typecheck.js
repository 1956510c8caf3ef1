// codemux type-check benchmark (part of `npm run bench`; alone: `npm run bench:typecheck`): a
// 30-line TypeScript program checked against the declarations of a real 300-tool upstream,
// cold (a fresh checker worker: TypeScript, its library and the scope loaded first) and warm
// (the language service kept), p50 and p95; the gateway RSS the checker adds; and, side by
// side in the same run, the same program executed with typecheck "off" and "warn" (under
// warn the check runs beside the program, and the answer waits for the longer of the two).
// Beside them, TypeScript 7 (the native compiler) on the same program and declarations
// (bench/typecheck-ts7.js), measured, not shipped (docs/benchmarks.md says why).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scopeDeclarations } from '../dist/catalog/index.js';
import { resolveConfig } from '../dist/config/index.js';
import { createRuntime } from '../dist/execution/index.js';
import { TYPECHECK_DEFAULTS, TypeChecker, typecheckWorkerUrl } from '../dist/typecheck/index.js';
import { silentLogger } from '../dist/util/logger.js';
import { fmt, median, quantile, table } from './report.js';
import { NativeChecker } from './typecheck-ts7.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MANY = path.join(ROOT, 'test', 'fixtures', 'many-tools-server.mjs');
const COLD_RUNS = Number(process.env.BENCH_TYPECHECK_COLD ?? 7);
const WARM_RUNS = Number(process.env.BENCH_TYPECHECK_WARM ?? 100);
const MB = 1_048_576;
const WARM_P50_TARGET_MS = 10;
const RSS_TARGET_MB = 40;

/** A realistic 30-line program over the 300-tool catalog; `n` makes each one a new text. */
const program = (n) => `// run ${n}
interface Event { title: string; start: string }
const wanted: Event[] = [
  { title: 'standup', start: '2026-01-05T09:00:00Z' },
  { title: 'review', start: '2026-01-05T15:00:00Z' },
];
const created = call_tools(
  wanted.map((e) => ({ server: 'many', tool: 'create_calendar_event', args: e })),
  { max_parallel: 2 },
);
const failures = created.filter((c) => !c.ok).map((c) => c.error.message);
const invoice = call_tool('many', 'create_invoice', { customer_id: 'c-${n}', amount: 120.5 });
const weather = await tools.many.get_weather_forecast({ city: 'Lyon', days: 3 });
const flag = await tools['many.update_feature_flag']({ flag: 'beta', enabled: true });
function summarize(texts: string[]): { count: number; first: string | null } {
  return { count: texts.length, first: texts[0] ?? null };
}
const texts: string[] = [];
for (const c of created) {
  if (c.ok) texts.push(c.result.content[0].text);
}
const found = await catalog.tools.search({ query: 'stock quote', limit: 3 });
const names = found.ok ? found.data.items.map((i) => i.qualifiedName) : [];
console.log('created', texts.length);
return {
  summary: summarize(texts),
  failures,
  invoice: invoice.ok,
  weather: weather.ok ? weather.data : weather.error.code,
  flag: flag.ok,
  names,
};`;

const results = table();
const report = results.row;
const config = resolveConfig(
  { mcpServers: [{ name: 'many', command: process.execPath, args: [MANY, '300'] }] },
  { baseDir: ROOT },
);
const runtime = createRuntime(config, silentLogger(), { live: true, warmWorkers: 2 });
await runtime.start();
for (let i = 0; i < 200 && runtime.registry.status().some((s) => s.state !== 'ready'); i++) {
  await new Promise((r) => setTimeout(r, 50));
}
const lines = program(0).split('\n').length;

// The gateway's thread hands the scope's tools to the worker (a copy, once per catalog version
// and scope); the worker writes the declarations.
runtime.catalog.run('tools.search', { query: 'index built' }, () => true);
const handOff = [];
let t;
for (let i = 0; i < 20; i++) {
  t = performance.now();
  structuredClone(runtime.catalog.declarations(undefined, 'code_execution').source());
  handOff.push(performance.now() - t);
}
const scope = runtime.catalog.declarations(undefined, 'code_execution');
const declarations = scopeDeclarations(scope.source());
const request = (n) => ({
  scopeKey: scope.key,
  scope: scope.source,
  source: program(n),
  javascript: false,
});

// Correctness first: the benchmark program has no diagnostics.
const probe = new TypeChecker(typecheckWorkerUrl(), TYPECHECK_DEFAULTS);
const first = await probe.check(request(0));
await probe.stop();
if (first.diagnostics.length > 0) {
  console.error(first.diagnostics);
  throw new Error('the benchmark program should have no diagnostics');
}

// Cold: a fresh checker each time (worker start, TypeScript and its library, the scope).
const cold = [];
for (let i = 0; i < COLD_RUNS; i++) {
  const checker = new TypeChecker(typecheckWorkerUrl(), TYPECHECK_DEFAULTS);
  t = performance.now();
  await checker.check(request(i));
  cold.push(performance.now() - t);
  await checker.stop();
}

// Warm: the gateway's own checker, RSS measured before it starts and after the warm runs.
global.gc?.();
const rssBefore = process.memoryUsage.rss();
await runtime.typecheck.check(request(-1));
const warm = [];
// The process's CPU time per check (the worker's, mostly: the gateway thread waits), which a
// loaded machine inflates less than the wall time.
const warmCpu = [];
for (let i = 0; i < WARM_RUNS; i++) {
  const cpu = process.cpuUsage();
  t = performance.now();
  await runtime.typecheck.check(request(i + 1));
  warm.push(performance.now() - t);
  const used = process.cpuUsage(cpu);
  warmCpu.push((used.user + used.system) / 1000);
}
const rssAdded = (process.memoryUsage.rss() - rssBefore) / MB;

// Side by side: the whole execution, typecheck "off" against "warn", alternating.
const runs = { off: [], warn: [] };
for (let i = 0; i < 40; i++) {
  for (const mode of i % 2 ? ['off', 'warn'] : ['warn', 'off']) {
    t = performance.now();
    const out = await runtime.service.execute({
      code: program(1000 + i),
      language: 'typescript',
      options: { typecheck: mode },
    });
    if (!out.envelope.ok || out.envelope.diagnostics) throw new Error(JSON.stringify(out.envelope));
    if (i >= 4) runs[mode].push(performance.now() - t);
  }
}
await runtime.stop();

// TypeScript 7: cold (a new native process, its library and the scope, then the first check),
// warm (a new snapshot per program), the native process's RSS after the warm runs.
const native = { cold: [], warm: [], cpu: undefined, rss: undefined, diagnostics: [] };
for (let i = 0; i < COLD_RUNS; i++) {
  t = performance.now();
  const checker = new NativeChecker(declarations.text);
  native.diagnostics = checker.check(program(i));
  native.cold.push(performance.now() - t);
  if (i < COLD_RUNS - 1) {
    checker.close();
    continue;
  }
  const cpuBefore = checker.cpuMs();
  for (let k = 0; k < WARM_RUNS; k++) {
    t = performance.now();
    native.diagnostics.push(...checker.check(program(k + 1)));
    native.warm.push(performance.now() - t);
  }
  const cpuAfter = checker.cpuMs();
  native.cpu = cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / WARM_RUNS;
  native.rss = checker.rss();
  checker.close();
}
if (native.diagnostics.length > 0) {
  console.error(native.diagnostics.slice(0, 5));
  throw new Error('TypeScript 7 should find no diagnostics in the benchmark program either');
}

const sortedCold = [...cold].sort((a, b) => a - b);
const sortedWarm = [...warm].sort((a, b) => a - b);
const off = median(runs.off);
const warn = median(runs.warn);
console.log(
  `\ncodemux type checks (a ${lines}-line program, 300-tool upstream: ${Math.round(declarations.text.length / 1024)} KiB of declarations)\n`,
);
report(
  'scope handed to the worker (gateway thread)',
  fmt(median(handOff)),
  'once per catalog version and scope',
  'informational',
  true,
);
report(
  `check, cold (p50 / p95 of ${COLD_RUNS} fresh workers)`,
  `${fmt(quantile(sortedCold, 0.5))} / ${fmt(quantile(sortedCold, 0.95))}`,
  'worker start + TypeScript + library + scope',
  'informational',
  true,
);
report(
  `check, warm p50 (of ${WARM_RUNS})`,
  fmt(quantile(sortedWarm, 0.5)),
  `p95 ${fmt(quantile(sortedWarm, 0.95))}`,
  `<= ${WARM_P50_TARGET_MS} ms`,
  quantile(sortedWarm, 0.5) <= WARM_P50_TARGET_MS,
);
report(
  'check, warm: process CPU per check (p50)',
  fmt(median(warmCpu)),
  "the worker thread's, mostly",
  'informational',
  true,
);
report(
  'gateway RSS added by the warm checker',
  `${rssAdded.toFixed(1)} MB`,
  `RSS before it started: ${(rssBefore / MB).toFixed(1)} MB`,
  `<= ${RSS_TARGET_MB} MB`,
  rssAdded <= RSS_TARGET_MB,
);
report(
  'execution with typecheck "warn" (median)',
  fmt(warn),
  `"off": ${fmt(off)} (${(warn / off).toFixed(2)}x)`,
  'informational',
  true,
);
const nativeCold = [...native.cold].sort((a, b) => a - b);
const nativeWarm = [...native.warm].sort((a, b) => a - b);
const nativeP50 = quantile(nativeWarm, 0.5);
report(
  `TypeScript 7 (not shipped): check, cold (p50 / p95 of ${COLD_RUNS})`,
  `${fmt(quantile(nativeCold, 0.5))} / ${fmt(quantile(nativeCold, 0.95))}`,
  'native process start + library + scope',
  'informational',
  true,
);
report(
  `TypeScript 7 (not shipped): check, warm p50 (of ${WARM_RUNS})`,
  fmt(nativeP50),
  `p95 ${fmt(quantile(nativeWarm, 0.95))}`,
  `<= ${WARM_P50_TARGET_MS} ms`,
  nativeP50 <= WARM_P50_TARGET_MS,
);
report(
  'TypeScript 7 (not shipped): native CPU per check',
  native.cpu === undefined ? 'n/a' : fmt(native.cpu),
  `mean of ${WARM_RUNS} (/proc utime+stime)`,
  'informational',
  true,
);
report(
  'TypeScript 7 (not shipped): native process RSS',
  native.rss === undefined ? 'n/a' : `${(native.rss / MB).toFixed(1)} MB`,
  'VmRSS after the warm checks',
  `<= ${RSS_TARGET_MB} MB`,
  native.rss !== undefined && native.rss / MB <= RSS_TARGET_MB,
);
results.done();
