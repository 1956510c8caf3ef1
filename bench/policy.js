// codemux tool policy benchmark (part of `npm run bench`; `node --import tsx bench/policy.js`
// after `npm run build`): the policy check per call at 100 rules beside 0 rules, and the round
// trip of an approval on one `codemux serve` (SQLite) from the REST decision to the call
// reaching the upstream, beside a call that is not held.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveConfig } from '../dist/config/index.js';
import { CallPolicy } from '../dist/execution/policy/call-policy.js';
import { judgeCall } from '../dist/execution/policy/tool-policy.js';
import { UpstreamRegistry } from '../dist/upstream/index.js';
import { silentLogger } from '../dist/util/logger.js';
import { ANNOTATED_TOOLS, MUTABLE } from '../test/policy-fixtures.ts';
import {
  heldRound,
  spread,
  startGateway,
  stopGateways,
  unheldRound,
  watchPending,
} from './approval-rounds.js';
import { fmt, median, table } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHECK_ROUNDS = 15;
const CHECKS_PER_ROUND = 20_000;
const APPROVALS = 30;
const WARM_APPROVALS = 5;

// A realistic mix: 10 server globs x 10 tool globs. The measured call, mut.write, matches none
// of them (`write_*` needs an underscore), so every rule is tried: the worst case.
const SERVER_GLOBS = ['github', 'gitlab', 'slack', 'linear', 'jira', 'postgres', 'db-*', '*-prod'];
const TOOL_GLOBS = [
  'delete_*',
  '*_file',
  'drop_*',
  'push',
  'merge_*',
  '*_secret*',
  'create_issue',
  'send_message',
  'write_*',
  '*_admin_*',
];
const ACTIONS = ['deny', 'ask', 'allow'];
const rulesOf = (servers) =>
  servers.flatMap((server, i) =>
    TOOL_GLOBS.map((tool, j) => ({ server, tool, action: ACTIONS[(i + j) % 3] })),
  );
/** 100 rules: 8 named servers and 2 `*` (whose tool globs are then tried too). */
const MIXED = rulesOf([...SERVER_GLOBS, '*', '*']);
/** 100 rules, every one `*` on the server: every tool glob is tried (the harshest case). */
const ALL_STARS = rulesOf(Array(10).fill('*'));
const CALL = { server: 'mut', tool: 'write', args: { path: '/bench' } };

const us = (ms) => `${(ms * 1000).toFixed(2)} us`;
const configOf = (rules) =>
  resolveConfig(
    {
      tool_policy: { rules },
      mcpServers: [
        {
          name: 'mut',
          command: process.execPath,
          args: [MUTABLE],
          env: { MUTABLE_TOOLS_FILE: toolsFile },
        },
      ],
    },
    { baseDir: ROOT },
  );

/**
 * Median per-call milliseconds of each of `fns`, in CHECK_ROUNDS alternating rounds of
 * CHECKS_PER_ROUND calls (the order reversed every other round). A synchronous fn is not awaited,
 * so its figure has no microtask in it.
 */
async function perCall(fns) {
  let sink = 0;
  const call = async (fn) => {
    const out = fn();
    sink += (typeof out?.then === 'function' ? await out : out) ? 1 : 0;
  };
  for (let i = 0; i < 2000; i++) for (const fn of fns) await call(fn);
  const times = fns.map(() => []);
  for (let r = 0; r < CHECK_ROUNDS; r++) {
    const order = fns.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const fn = fns[i];
      const t = performance.now();
      if (fn.constructor.name === 'AsyncFunction') {
        for (let k = 0; k < CHECKS_PER_ROUND; k++) sink += (await fn()) ? 1 : 0;
      } else {
        for (let k = 0; k < CHECKS_PER_ROUND; k++) sink += fn() ? 1 : 0;
      }
      times[i].push((performance.now() - t) / CHECKS_PER_ROUND);
    }
  }
  if (sink < 0) console.log(sink);
  return times.map(median);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-policy-'));
const toolsFile = path.join(dir, 'tools.json');
fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
const results = table();
const gateways = [];
try {
  // (a) The check itself: judgeCall, and CallPolicy.judge over a real registry (the tool's annotations looked up).
  const none = configOf([]);
  const mixed = configOf(MIXED);
  const stars = configOf(ALL_STARS);
  for (const config of [mixed, stars]) {
    const verdict = judgeCall(config.toolPolicy, CALL.server, CALL.tool);
    if (config.toolPolicy.rules.length !== 100 || verdict.reason !== 'default') {
      throw new Error(`the measured call must match none of 100 rules: ${verdict.reason}`);
    }
  }
  const judge = (config) => () => judgeCall(config.toolPolicy, CALL.server, CALL.tool).action;
  const [judge0, judgeMixed, judgeStars] = await perCall([judge(none), judge(mixed), judge(stars)]);

  const registry = new UpstreamRegistry(none.servers, silentLogger());
  const started = await registry.ensureStarted('mut');
  if (!started.ok) throw new Error(started.message);
  const facts = { id: 'bench', surface: 'rest', caller: { kind: 'admin' }, startedAt: Date.now() };
  const policyOf = (config) =>
    new CallPolicy({ registry, config, facts, activityId: undefined, run: {} });
  // Synchronous once the server's tools are known, as on a running gateway.
  const step = (policy) => () => policy.judge(CALL);
  const [step0, stepMixed] = await perCall([step(policyOf(none)), step(policyOf(mixed))]);
  await registry.stop();

  // (b) Approval round trips on one instance.
  const gateway = await startGateway(dir, 'one');
  gateways.push(gateway);
  const watcher = await watchPending(gateway);
  for (let i = 0; i < WARM_APPROVALS; i++) {
    await heldRound(gateway, gateway, watcher);
    await unheldRound(gateway);
  }
  const held = [];
  const unheld = [];
  // Alternated, so load from other work on the machine hits both alike.
  for (let i = 0; i < APPROVALS; i++) {
    held.push(await heldRound(gateway, gateway, watcher));
    unheld.push(await unheldRound(gateway));
  }
  watcher.close();
  const dispatch = spread(held.map((r) => r.dispatch));
  const answer = spread(held.map((r) => r.answer));
  const plain = spread(unheld.map((r) => r.dispatch));

  console.log(
    `\ncodemux tool policy (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})\n`,
  );
  const ratio = (a, b) => `${(a / b).toFixed(1)}x`;
  results.row(
    'judgeCall, 100 rules none matching (median)',
    us(judgeMixed),
    `0 rules ${us(judge0)} (${ratio(judgeMixed, judge0)})`,
    '< 20 us',
    judgeMixed < 0.02,
  );
  results.row(
    'judgeCall, 100 rules on `*` servers (median)',
    us(judgeStars),
    `0 rules ${us(judge0)} (${ratio(judgeStars, judge0)})`,
    '< 20 us',
    judgeStars < 0.02,
  );
  results.row(
    'CallPolicy.judge, 100 rules (median)',
    us(stepMixed),
    `0 rules ${us(step0)} (${ratio(stepMixed, step0)})`,
    '< 20 us',
    stepMixed < 0.02,
  );
  results.row(
    `approve -> call at upstream, SQLite (median)`,
    fmt(dispatch.median),
    `unheld call: exec -> upstream ${fmt(plain.median)}`,
    '< 50 ms',
    dispatch.median < 50,
  );
  results.row(
    `approve -> call at upstream, SQLite (p95)`,
    fmt(dispatch.p95),
    `unheld call: exec -> upstream ${fmt(plain.p95)}`,
    '< 50 ms',
    dispatch.p95 < 50,
  );
  results.done();
  console.log(
    `\n${APPROVALS} approvals, each alternated with an unheld call. "approve -> call at upstream": from sending\n` +
      'POST /api/v1/approvals/{id}/approve until the fixture upstream stamps the call (the same clock).\n' +
      `approve -> the exec's HTTP answer: median ${fmt(answer.median)}, p95 ${fmt(answer.p95)}.`,
  );
} finally {
  await stopGateways(gateways);
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
