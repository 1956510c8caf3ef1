// codemux run-journal benchmark (`npm run bench:journal`, issue 36: runs survive a restart).
//
// 1. What journaling costs: a run of ten upstream calls and a trivial run (`1+1`) through a
//    gateway with `code_execution_durable` on, beside one with it off (same machine, same store
//    kind, alternating rounds after a warm-up), over REST. Latency p50/p95 of each and their
//    ratio; gateway CPU (/proc/PID/stat of each gateway process: its sandbox workers are threads
//    in it, the fixture upstream is not) per run and per journaled upstream call.
// 2. Replay speed: a run makes 100 calls and then waits on a held approval; the gateway is
//    killed with SIGKILL and started again on the same config (a fixed instance_id, so it takes
//    its runs back at once). The approval (kept in the store) is approved as soon as the new
//    gateway answers, before it resumes the run (checked: a later approval is printed "late"),
//    so the resumed run sends the held call the moment its replay reaches it. Timed from the restarted gateway's "resuming run" log line
//    (its own timestamp, written once the journal was claimed and read) to the held call's
//    arrival at the fixture (the fixture's stamp, same clock): the replay of 100 calls plus one
//    live dispatch. (Polling GET /api/v1/executions/{id} cannot show the moment: until the
//    resumed run is live the gateway answers from the run's stored record, which still says it
//    waits.) The fixture's arrivals confirm that none of the 100 calls was sent again and the
//    held one was sent once; on SQLite the journal is also read from outside with the store's
//    query, for the read's own time. The same with a run whose held call is its first gives
//    the fixed cost of a resume (a run started cold on a just-started gateway, one dispatch);
//    the difference is the replay of the 100 calls.
// 3. The journal path alone, in this process on the built code: per journaled call, and a
//    100-call journal claimed, read and answered from (no sandbox, no gateway).
//
// SQLite always; PostgreSQL too with `--postgres` (a throwaway server, Debian's binaries) or
// `--database-url URL` (an existing database; both gateways share it, with their own instance ids).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { journaledCall } from '../dist/execution/runs/journaled-dispatch.js';
import { RunJournal } from '../dist/execution/runs/run-journal.js';
import { openSqliteDatabase } from '../dist/store/sqlite-database.js';
import { sqliteRunJournalStore } from '../dist/store/sqlite-run-journal-store.js';
import { ANNOTATED_TOOLS, MUTABLE } from '../test/policy-fixtures.ts';
import { fmt, freePort, median, quantile, table, warmFor } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
const KEY = 'bench-admin-key';
const ROUNDS = 20;
const PER_ROUND = 20;
const REPLAYS = 3;
const REPLAY_CALLS = 100;
const TICK_MS = 1000 / 100; // USER_HZ: /proc/PID/stat counts CPU in hundredths of a second on Linux.

const TEN = 'for (let i = 0; i < 10; i++) call_tool("fx", "echo", { message: "m" + i }); 1';
const TRIVIAL = '1+1';
/** A run of `calls` calls, then one held for approval. */
const replayCode = (
  calls,
) => `for (let i = 0; i < ${calls}; i++) call_tool('mut', 'read', { path: '/r' + i });
const r = call_tool('mut', 'wipe', { path: '/held' });
r.ok ? 'wiped' : r.error.code`;

const argv = process.argv.slice(2);
const urlAt = argv.indexOf('--database-url');
const givenUrl = urlAt >= 0 ? argv[urlAt + 1] : undefined;
const withPostgres = argv.includes('--postgres') || givenUrl !== undefined;

/** Milliseconds of CPU process `pid` has used (user + system, all its threads). */
function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** This machine's clock in epoch milliseconds with sub-millisecond digits. */
const now = () => performance.timeOrigin + performance.now();

/**
 * Spawns `codemux serve --config file`; resolves once it says it listens. `lines` collects its
 * output lines with when each arrived here (epoch ms).
 */
async function spawnGateway(file) {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  let rest = '';
  const take = (d) => {
    const at = now();
    rest += d;
    const parts = rest.split('\n');
    rest = parts.pop();
    for (const text of parts) lines.push({ text, at });
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const listening = () => lines.some((l) => l.text.includes(' listening on '));
  for (let i = 0; i < 600 && !listening() && child.exitCode === null; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  if (!listening())
    throw new Error(`${file} did not start:\n${lines.map((l) => l.text).join('\n')}`);
  return { child, lines };
}

/** Writes a gateway's config in `dir` (name `id`) and returns its file and base URL. */
async function writeConfig(dir, id, extra) {
  const port = await freePort();
  const file = path.join(dir, `${id}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      api_key: KEY,
      instance_id: id,
      data_dir: path.join(dir, id),
      tool_pinning: 'off',
      ...extra,
    }),
  );
  return { file, base: `http://127.0.0.1:${port}` };
}

async function rest(base, method, url, body) {
  const r = await fetch(`${base}${url}`, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json().catch(() => null) };
}

/** REST exec of `code`; throws unless it answered ok. */
async function exec(base, code) {
  const { json } = await rest(base, 'POST', '/api/v1/code/exec', { code });
  if (!json?.ok) throw new Error(`exec ${code}: ${JSON.stringify(json)}`);
  return json;
}

async function stop(children) {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      (child) =>
        new Promise((r) =>
          child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r),
        ),
    ),
  );
}

/**
 * Part 1 on one store kind: `storeOf(id)` is the config naming each gateway's store. Returns the
 * figures of the ten-call and the trivial run, journaled beside not.
 */
async function journalCost(dir, storeOf) {
  const fx = { fx: { command: process.execPath, args: [FIXTURE] } };
  const gateways = [];
  try {
    for (const [id, durable] of [
      ['journaled', true],
      ['plain', false],
    ]) {
      const { file, base } = await writeConfig(dir, id, {
        ...(await storeOf(id)),
        code_execution_durable: durable,
        mcpServers: fx,
      });
      const { child } = await spawnGateway(file);
      gateways.push({ id, base, child });
    }
    const [on, off] = gateways;
    const figures = {};
    for (const [name, code, calls] of [
      ['ten', TEN, 10],
      ['trivial', TRIVIAL, 0],
    ]) {
      await warmFor(3000, [() => exec(on.base, code), () => exec(off.base, code)]);
      const times = { journaled: [], plain: [] };
      const cpu0 = { journaled: cpuMs(on.child.pid), plain: cpuMs(off.child.pid) };
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 ? [off, on] : [on, off];
        for (const g of order) {
          for (let k = 0; k < PER_ROUND; k++) {
            const t = performance.now();
            await exec(g.base, code);
            times[g.id].push(performance.now() - t);
          }
        }
      }
      const runs = ROUNDS * PER_ROUND;
      const cpu = {
        journaled: (cpuMs(on.child.pid) - cpu0.journaled) / runs,
        plain: (cpuMs(off.child.pid) - cpu0.plain) / runs,
      };
      const stats = (values) => {
        const sorted = [...values].sort((a, b) => a - b);
        return { p50: median(sorted), p95: quantile(sorted, 0.95) };
      };
      figures[name] = {
        calls,
        journaled: { ...stats(times.journaled), cpu: cpu.journaled },
        plain: { ...stats(times.plain), cpu: cpu.plain },
      };
    }
    return figures;
  } finally {
    await stop(gateways.map((g) => g.child));
  }
}

/**
 * Polls run `id` on `base` (every 10 ms) until it waits on an approval; its standing then.
 */
async function untilWaiting(base, id, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const { json } = await rest(base, 'GET', `/api/v1/executions/${id}?wait_ms=0`);
      if ((json?.waiting_for ?? []).length > 0) return json;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`run ${id} never waited on its approval`);
}

/** The fixture's arrivals: `name epoch-ms` lines, in order. */
const stamps = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '));

/** The fixture's arrivals: tool names in order. */
const arrivals = (file) => stamps(file).map(([name]) => name);

/**
 * Part 2, one round on one store kind: a 100-call run held on an approval, kill -9, restart,
 * the time to wait on the approval again. On SQLite the journal is also read from outside (the
 * store's query) for its read time.
 */
async function replayOnce(dir, n, store, sqlite, calls) {
  const id = `replay-${sqlite ? 'sqlite' : 'pg'}-${calls}-${n}`;
  const toolsFile = path.join(dir, 'tools.json');
  const arrivalsFile = path.join(dir, `${id}-arrivals.txt`);
  fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
  fs.writeFileSync(arrivalsFile, '');
  const { file, base } = await writeConfig(dir, id, {
    ...store,
    code_execution_yield_ms: 1000,
    tool_policy: { approval_timeout_ms: 600_000 },
    mcpServers: [
      {
        name: 'mut',
        command: process.execPath,
        args: [MUTABLE],
        env: { MUTABLE_TOOLS_FILE: toolsFile, MUTABLE_ARRIVALS_FILE: arrivalsFile },
      },
    ],
  });
  const children = [];
  try {
    const first = await spawnGateway(file);
    children.push(first.child);
    // The upstream is ready once a call reaches it (and the first life's workers are warm).
    for (let i = 0; i < 200; i++) {
      const { json } = await rest(base, 'POST', '/api/v1/code/exec', {
        code: "call_tool('mut', 'read', { path: '/ready' }).ok",
      });
      if (json?.ok && json.value === true) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const before = arrivals(arrivalsFile).length;
    const started = await exec(base, replayCode(calls));
    const runId = started.execution_id;
    if (!runId) throw new Error(`the run did not yield: ${JSON.stringify(started)}`);
    const held = await untilWaiting(base, runId, 60_000);
    // The first life's 100 calls, from the first's arrival at the fixture to the last's.
    const made = stamps(arrivalsFile).slice(before);
    const live = calls ? Number(made.at(-1)[1]) - Number(made[0][1]) : 0;
    const approvalId = held.waiting_for[0].approval_id;
    const firstLife = arrivals(arrivalsFile).slice(before);
    if (firstLife.length !== calls || firstLife.some((t) => t !== 'read')) {
      throw new Error(`the first life sent ${JSON.stringify(firstLife)}`);
    }
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await exited;

    // The journal as the restarted gateway reads it (SQLite: the same query, from outside).
    let read;
    if (sqlite) {
      const db = new Database(path.join(dir, id, 'codemux.db'), { readonly: true });
      const t = performance.now();
      const rows = db
        .prepare('SELECT seq, kind, data FROM run_journal_entries WHERE run_id = ? ORDER BY seq')
        .all(runId)
        .map((row) => ({ ...row, data: JSON.parse(row.data) }));
      read = { ms: performance.now() - t, entries: rows.length };
      db.close();
    }

    const spawned = Date.now();
    const second = spawnGateway(file);
    // Approved as soon as the new gateway answers at all (before it resumes its runs: checked
    // below); the approval survived in the store, and the resumed run reads the decision when
    // its replay reaches the held call, so the held call goes out as soon as the replay is done.
    let approved;
    while (approved?.status !== 200 && Date.now() - spawned < 30_000) {
      approved = await rest(base, 'POST', `/api/v1/approvals/${approvalId}/approve`, {}).catch(
        () => new Promise((r) => setTimeout(r, 2)),
      );
    }
    const approvedAt = Date.now();
    if (approved?.status !== 200) throw new Error(`approve answered ${approved?.status}`);
    const { child, lines } = await second;
    children.push(child);
    let final;
    do {
      final = (await rest(base, 'GET', `/api/v1/executions/${runId}?wait_ms=5000`)).json;
    } while (final?.status === 'running');
    if (!final?.ok || final.value !== 'wiped') {
      throw new Error(`the resumed run ended ${JSON.stringify(final)}`);
    }
    const sentAfter = stamps(arrivalsFile).slice(before + calls);
    if (sentAfter.map(([name]) => name).join() !== 'wipe') {
      throw new Error(`the resumed run sent ${JSON.stringify(sentAfter)}, not just the held wipe`);
    }
    const wipeAt = Number(sentAfter[0][1]);
    // The log line may reach this process late (the logger buffers): its own time counts.
    const said = () => lines.find((l) => l.text.includes(`resuming run ${runId}`));
    for (let i = 0; i < 250 && !said(); i++) await new Promise((r) => setTimeout(r, 20));
    if (!said()) throw new Error('the restarted gateway did not say it resumed the run');
    const resuming = JSON.parse(said().text);
    return {
      live,
      // From the line (written once the journal was claimed and read) to the held call sent:
      // the replay of 100 calls, then one live dispatch.
      replay: wipeAt - resuming.time,
      // Approved only after the resume began: the figure includes waiting for the decision.
      late: approvedAt >= resuming.time,
      restart: wipeAt - spawned,
      read,
      entries: resuming.entries,
    };
  } finally {
    await stop(children);
  }
}

/**
 * REPLAYS restarts of a 100-call run and, between them, of a run whose held call is its first
 * (its figure is the fixed cost of a resume: a cold run on a just-started gateway, one dispatch).
 */
async function replaySpeed(dir, store, sqlite) {
  const full = [];
  const empty = [];
  for (let n = 0; n < REPLAYS; n++) {
    full.push(await replayOnce(dir, n, store, sqlite, REPLAY_CALLS));
    empty.push(await replayOnce(dir, n, store, sqlite, 0));
  }
  return { full, empty };
}

/**
 * The journal path alone, in this process on the built code (dist/): runs of ten journaled
 * calls (header, 10 x sent + answered, finish) into a SQLite store opened as the gateway opens
 * it, then the replay of a 100-call journal (claim it, read it, answer 100 calls from it).
 */
async function journalAlone(dir) {
  const outcome = { ok: true, result: { content: [{ type: 'text', text: 'echo: m1' }] } };
  const lease = () => ({ id: 'bench', leaseUntil: new Date(Date.now() + 60_000).toISOString() });
  const header = (id) => ({
    id,
    owner: 'admin',
    caller: { kind: 'admin' },
    kind: 'code_execution',
    tool: null,
    request: { code: TEN },
    surface: 'rest',
  });
  const db = openSqliteDatabase(path.join(dir, 'alone'));
  const store = sqliteRunJournalStore(db);
  let runs = 0;
  const tenCalls = async (store) => {
    const journal = new RunJournal(store, header(`run-${runs++}`), lease);
    journal.bind('digest');
    for (let i = 0; i < 10; i++) {
      await journaledCall(
        journal,
        journal.next(),
        { server: 'fx', tool: 'echo', args: { message: `m${i}` } },
        async () => outcome,
      );
    }
    await journal.finish();
  };
  const wall = [];
  const cpu = [];
  for (let round = 0; round < 6; round++) {
    const n = 100;
    const used = process.cpuUsage();
    const t = performance.now();
    for (let k = 0; k < n; k++) await tenCalls(store);
    // The first two rounds warm up.
    if (round < 2) continue;
    wall.push((performance.now() - t) / (n * 10));
    const { user, system } = process.cpuUsage(used);
    cpu.push((user + system) / 1000 / (n * 10));
  }
  // The replay: a 100-call journal read back and answered from.
  const kept = new RunJournal(store, header('replayed'), lease);
  kept.bind('digest');
  for (let i = 0; i < REPLAY_CALLS; i++) {
    await journaledCall(
      kept,
      kept.next(),
      { server: 'mut', tool: 'read', args: { path: `/r${i}` } },
      async () => outcome,
    );
  }
  const replays = [];
  for (let round = 0; round < 20; round++) {
    const t = performance.now();
    const [record] = await store.claim('bench', new Date(Date.now() + 60_000).toISOString(), {
      mine: true,
      now: new Date().toISOString(),
      limit: 10,
    });
    const entries = await store.entries(record.id);
    const journal = new RunJournal(store, header('replayed'), lease, { record, entries });
    journal.bind('digest');
    for (let i = 0; i < REPLAY_CALLS; i++) {
      await journaledCall(
        journal,
        journal.next(),
        { server: 'mut', tool: 'read', args: { path: `/r${i}` } },
        () => {
          throw new Error('a replayed call went out');
        },
      );
    }
    replays.push(performance.now() - t);
  }
  const synchronous = db.pragma('synchronous', { simple: true });
  db.close();
  return { wall: median(wall), cpu: median(cpu), replay: median(replays.slice(5)), synchronous };
}

const results = table();
const summaries = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-bench-journal-'));
let postgres;
try {
  const stores = [['SQLite', async () => ({}), {}]];
  if (withPostgres) {
    const url = givenUrl;
    if (!url) {
      const { startPostgres } = await import('../test/postgres.ts');
      postgres = await startPostgres();
    }
    stores.push([
      'PostgreSQL',
      async (id) => ({ database_url: url ?? (await postgres.database(`bench_${id}`)) }),
      { database_url: url ?? (await postgres.database('bench_replay')) },
    ]);
  }
  const load = os.loadavg().map((l) => l.toFixed(2));
  console.log(
    `\ncodemux run journal: ${os.cpus().length} cores (${os.cpus()[0]?.model}), node ${process.version}, load ${load.join(' ')}`,
  );
  const alone = await journalAlone(dir);
  for (const [kind, storeOf, replayStore] of stores) {
    const cost = await journalCost(dir, storeOf);
    const replay = await replaySpeed(dir, replayStore, kind === 'SQLite');
    summaries.push({ kind, cost, replay });
  }
  console.log(
    `\nREST /api/v1/code/exec, ${ROUNDS} alternating rounds of ${PER_ROUND} runs per gateway; replay: ${REPLAYS} restarts each of a ${REPLAY_CALLS}-call and a 0-call run held on an approval\n`,
  );
  for (const { kind, cost, replay } of summaries) {
    const { ten, trivial } = cost;
    const cpuTarget = kind === 'SQLite' ? '<= 0.2 ms' : 'reported';
    for (const [name, f] of [
      ['ten calls', ten],
      ['trivial run', trivial],
    ]) {
      const ratio = f.journaled.p50 / f.plain.p50;
      results.row(
        `${kind}: ${name}, p50 journaled`,
        fmt(f.journaled.p50),
        `off ${fmt(f.plain.p50)} (${ratio.toFixed(3)}x)`,
        kind === 'SQLite' ? '<= 1.10x' : 'reported',
        kind !== 'SQLite' || ratio <= 1.1,
      );
      console.log(
        `      ${kind}: ${name}, p95 journaled ${fmt(f.journaled.p95)} vs off ${fmt(f.plain.p95)} (${(f.journaled.p95 / f.plain.p95).toFixed(3)}x); gateway CPU per run ${fmt(f.journaled.cpu)} vs off ${fmt(f.plain.cpu)}`,
      );
    }
    const perCall = (ten.journaled.cpu - ten.plain.cpu) / ten.calls;
    results.row(
      `${kind}: gateway CPU per journaled call`,
      fmt(perCall),
      `per 10-call run ${fmt(ten.journaled.cpu)} vs ${fmt(ten.plain.cpu)}`,
      cpuTarget,
      kind !== 'SQLite' || perCall <= 0.2,
    );
    const replays = replay.full.map((r) => r.replay);
    const fixed = median(replay.empty.map((r) => r.replay));
    const late = [...replay.full, ...replay.empty].some((r) => r.late);
    results.row(
      `${kind}: resume of a ${REPLAY_CALLS}-call run (median)`,
      `${fmt(median(replays))}${late ? ' (late)' : ''}`,
      `all ${replays.map(fmt).join(', ')}; 0-call run ${fmt(fixed)}`,
      '< 100 ms',
      median(replays) < 100,
    );
    const net = median(replays) - fixed;
    console.log(
      `      ${kind}: the replay itself (100-call resume minus 0-call resume) ${fmt(net)}, ${fmt(net / REPLAY_CALLS)} per call; first life: ${REPLAY_CALLS} live calls in ${fmt(median(replay.full.map((r) => r.live)))}`,
    );
    const reads = replay.full.filter((r) => r.read);
    console.log(
      `      ${kind}: journal entries ${replay.full.map((r) => r.entries).join(', ')}; from spawn to the held call sent ${replay.full.map((r) => fmt(r.restart)).join(', ')}${reads.length ? `; journal read from outside (same query) ${reads.map((r) => fmt(r.read.ms)).join(', ')}` : ''}; no call sent again, the approved one sent once`,
    );
  }
  console.log(
    `\nThe journal path alone (in process, SQLite as the gateway opens it: WAL, synchronous ${alone.synchronous}):\n      per journaled call ${fmt(alone.wall)} wall, ${fmt(alone.cpu)} CPU; a ${REPLAY_CALLS}-call journal claimed, read and answered from: ${fmt(alone.replay)}\n`,
  );
  results.done();
} finally {
  await postgres?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
