// Shared by bench/policy.js and bench/policy-cluster.js: a `codemux serve` over the mutable
// fixture with annotated tools (`wipe` is destructive, so held under the default policy), and
// approval round trips timed against the fixture's own arrival stamps.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ANNOTATED_TOOLS, MUTABLE } from '../test/policy-fixtures.ts';
import { freePort, median, quantile } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'codemux.js');
export const KEY = 'bench-admin-key';
const holdCode = (target) => `call_tool('mut', 'wipe', { path: ${JSON.stringify(target)} }).ok`;
const UNHELD = "call_tool('mut', 'read', { path: '/bench' }).ok";

/** This machine's clock in epoch milliseconds with sub-millisecond digits (the fixture stamps the same way). */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Starts `codemux serve` on a free loopback port in `dir` (SQLite there, or `extra.database_url`);
 * the fixture appends each call's arrival to `arrivals`.
 */
export async function startGateway(dir, id, extra = {}) {
  const port = await freePort();
  const file = path.join(dir, `${id}.json`);
  const toolsFile = path.join(dir, 'tools.json');
  const arrivals = path.join(dir, `${id}-arrivals.txt`);
  fs.writeFileSync(toolsFile, JSON.stringify(ANNOTATED_TOOLS));
  fs.writeFileSync(
    file,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      api_key: KEY,
      instance_id: id,
      data_dir: path.join(dir, id),
      tool_pinning: 'off',
      tool_policy: { approval_timeout_ms: 60_000 },
      ...extra,
      mcpServers: [
        {
          name: 'mut',
          command: process.execPath,
          args: [MUTABLE],
          env: { MUTABLE_TOOLS_FILE: toolsFile, MUTABLE_ARRIVALS_FILE: arrivals },
        },
      ],
    }),
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  for (let i = 0; i < 600 && !out.includes(' listening on '); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!out.includes(' listening on ')) throw new Error(`instance ${id} did not start`);
  const gateway = { base: `http://127.0.0.1:${port}`, child, arrivals };
  // The upstream is ready once a call reaches it.
  for (let i = 0; i < 200; i++) {
    const { body } = await exec(gateway, UNHELD);
    if (body.ok && body.value === true) return gateway;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`instance ${id}: the fixture upstream never answered`);
}

/** Stops the gateways and waits for their exits. */
export async function stopGateways(gateways) {
  for (const { child } of gateways) child.kill('SIGTERM');
  await Promise.all(
    gateways.map(
      ({ child }) => new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r))),
    ),
  );
}

/** REST /api/v1/code/exec; `at` is when its answer arrived. */
async function exec(gateway, code) {
  const r = await fetch(`${gateway.base}/api/v1/code/exec`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = await r.json();
  return { body, at: now() };
}

/** When the fixture behind `gateway` last received a call of `tool` (epoch ms). */
export function lastArrival(gateway, tool) {
  const lines = fs.readFileSync(gateway.arrivals, 'utf8').trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const [name, at] = lines[i].split(' ');
    if (name === tool) return Number(at);
  }
  throw new Error(`no ${tool} call reached the fixture`);
}

/**
 * Pending approvals as `gateway`'s SSE stream (GET /api/v1/approvals/stream) announces them:
 * `pending(target)` resolves with the one whose arguments carry `path: target` (every round holds its own;
 * many may wait at once).
 */
export async function watchPending(gateway) {
  const abort = new AbortController();
  const response = await fetch(`${gateway.base}/api/v1/approvals/stream`, {
    headers: { 'x-api-key': KEY },
    signal: abort.signal,
  });
  const byPath = new Map();
  // Every caller of pending() waiting now, woken at each announcement.
  const wakers = new Set();
  void (async () => {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of response.body) {
        text += decoder.decode(chunk, { stream: true });
        let end = text.indexOf('\n\n');
        for (; end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          if (!/^event: approval$/m.test(block)) continue;
          const data = block.match(/^data: (.*)$/m)?.[1];
          const approval = data && JSON.parse(data);
          if (approval?.status !== 'pending') continue;
          byPath.set(approval.args?.path, approval);
          for (const wake of wakers) wake();
          wakers.clear();
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return {
    async pending(target) {
      while (!byPath.has(target)) await new Promise((r) => wakers.add(r));
      const approval = byPath.get(target);
      byPath.delete(target);
      return approval;
    },
    close: () => abort.abort(),
  };
}

let rounds = 0;

/**
 * One held call: an exec on `held` calls `wipe`; once `watcher` (on `decider`) announces the
 * approval, POST approve on `decider`. Milliseconds from sending the approval until the call
 * reaches the fixture, and until the exec's answer arrives.
 */
export async function heldRound(held, decider, watcher) {
  const target = `/bench-${++rounds}`;
  const pending = watcher.pending(target);
  const run = exec(held, holdCode(target));
  const approval = await pending;
  const sent = now();
  const decided = await fetch(`${decider.base}/api/v1/approvals/${approval.id}/approve`, {
    method: 'POST',
    headers: { 'x-api-key': KEY },
  });
  if (decided.status !== 200) throw new Error(`approve answered ${decided.status}`);
  const { body, at } = await run;
  if (!body.ok || body.value !== true) throw new Error(`the held exec: ${JSON.stringify(body)}`);
  const arrived = lastArrival(held, 'wipe');
  // The fixture's stamp must fall between the two: a sanity check on the shared clock.
  if (arrived < sent || arrived > at) throw new Error('the arrival stamp is outside the round');
  return { dispatch: arrived - sent, answer: at - sent };
}

/** One unheld call of `read` (annotated read-only, allowed): from sending the exec until the call reaches the fixture. */
export async function unheldRound(gateway) {
  const sent = now();
  const { body, at } = await exec(gateway, UNHELD);
  if (!body.ok || body.value !== true) throw new Error(`the unheld exec: ${JSON.stringify(body)}`);
  const arrived = lastArrival(gateway, 'read');
  if (arrived < sent || arrived > at) throw new Error('the arrival stamp is outside the round');
  return { dispatch: arrived - sent, answer: at - sent };
}

/** Median and p95 of `values`. */
export function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: median(sorted), p95: quantile(sorted, 0.95) };
}
