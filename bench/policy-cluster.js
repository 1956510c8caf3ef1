// codemux approvals across instances (`npm run bench:policy-cluster`): two `codemux serve` on one
// PostgreSQL (a throwaway server started here). A call held on A is approved through B's REST
// API; timed from sending the approval until the call reaches A's upstream, beside the same
// call approved through A itself (the same database, no hop between instances).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPostgres } from '../test/postgres.ts';
import { heldRound, spread, startGateway, stopGateways, watchPending } from './approval-rounds.js';
import { fmt, table } from './report.js';

const APPROVALS = 30;
const WARM_APPROVALS = 5;

const postgres = await startPostgres();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-policy-cluster-'));
const gateways = [];
try {
  const url = await postgres.database('bench_policy');
  for (const id of ['a', 'b']) gateways.push(await startGateway(dir, id, { database_url: url }));
  const [a, b] = gateways;
  // Each decider learns of the pending approval from its own stream (B hears A's through the database).
  const watchA = await watchPending(a);
  const watchB = await watchPending(b);
  for (let i = 0; i < WARM_APPROVALS; i++) {
    await heldRound(a, b, watchB);
    await heldRound(a, a, watchA);
  }
  const across = [];
  const local = [];
  // Alternated, so load from other work on the machine hits both alike.
  for (let i = 0; i < APPROVALS; i++) {
    across.push(await heldRound(a, b, watchB));
    local.push(await heldRound(a, a, watchA));
  }
  watchA.close();
  watchB.close();
  const far = spread(across.map((r) => r.dispatch));
  const near = spread(local.map((r) => r.dispatch));
  const farAnswer = spread(across.map((r) => r.answer));

  const results = table();
  console.log(
    `\ncodemux approvals on PostgreSQL, 2 instances (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})\n`,
  );
  results.row(
    'held on A, decided on B -> upstream (median)',
    fmt(far.median),
    `approved on A itself ${fmt(near.median)}`,
    '< 1 s',
    far.median < 1000,
  );
  results.row(
    'held on A, decided on B -> upstream (p95)',
    fmt(far.p95),
    `approved on A itself ${fmt(near.p95)}`,
    '< 1 s',
    far.p95 < 1000,
  );
  results.done();
  console.log(
    `\n${APPROVALS} approvals each way, alternated. "-> upstream": from sending POST /api/v1/approvals/{id}/approve\n` +
      "until A's fixture upstream stamps the call (the same clock). Approved on B -> A's exec answer:\n" +
      `median ${fmt(farAnswer.median)}, p95 ${fmt(farAnswer.p95)}.`,
  );
} finally {
  await stopGateways(gateways);
  await postgres.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
