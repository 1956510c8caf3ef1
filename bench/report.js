// Shared by the benchmark scripts: medians, durations as text, the PASS/MISS table, and
// starting the processes they measure (a free loopback port, waiting until a URL answers) and
// reading what they used (CPU time from /proc).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** The median of `values` (unsorted input is fine). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Round `r`'s order of `count` functions: as listed on even rounds, reversed on odd ones. */
export const alternating = (count, r) => {
  const order = [...Array(count).keys()];
  return r % 2 ? order.reverse() : order;
};

/**
 * An order for sideBySide when its functions come in consecutive groups of `size` (the figures
 * of one build): each round starts one group later, so every group goes first, second, ... in
 * turn (many builds get even shares of a load spike, which reversing alone does not give the
 * middle ones); within a group the order is reversed every other round.
 */
export const rotatingGroups = (size) => (count, r) => {
  const groups = Math.ceil(count / size);
  const order = [];
  for (let g = 0; g < groups; g++) {
    const group = (g + r) % groups;
    const members = [];
    for (let i = group * size; i < Math.min(count, (group + 1) * size); i++) members.push(i);
    order.push(...(r % 2 ? members.reverse() : members));
  }
  return order;
};

/**
 * Median per-call times of each of `fns`, measured in `rounds` rounds of `perRound` sequential
 * calls each (so a load spike on this shared machine hits them alike): in the order
 * `order(fns.length, round)` gives, by default reversed every other round.
 */
export async function sideBySide(fns, perRound, rounds, order = alternating) {
  for (let i = 0; i < 20; i++) for (const fn of fns) await fn();
  const times = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const i of order(fns.length, r)) {
      const t = performance.now();
      for (let k = 0; k < perRound; k++) await fns[i]();
      times[i].push((performance.now() - t) / perRound);
    }
  }
  return times.map(median);
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** CPU seconds (user + system, every thread) the process `pid` has used so far. */
export function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** Executions per second from `clients` back to back for `ms`: `exec(client, '1')` each. */
export async function throughput(clients, exec, ms) {
  let done = 0;
  const until = performance.now() + ms;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        await exec(client, '1');
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

/** Calls each of `fns` in turn, over and over, for `ms` (JIT warm-up before sideBySide). */
export async function warmFor(ms, fns) {
  const until = performance.now() + ms;
  while (performance.now() < until) for (const fn of fns) await fn();
}

/** The `q` quantile of already sorted values. */
export const quantile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Milliseconds as text: microseconds below 1 ms. */
export const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} us` : `${ms.toFixed(2)} ms`);

/** A table of figures, each beside its baseline and target, with a closing count. */
export function table() {
  const passes = [];
  return {
    row(name, value, baseline, target, pass) {
      passes.push(pass);
      console.log(
        `${pass ? 'PASS' : 'MISS'}  ${name.padEnd(44)} ${value.padEnd(16)} ${baseline.padEnd(44)} target ${target}`,
      );
    },
    done() {
      console.log(`\n${passes.filter(Boolean).length} of ${passes.length} within target`);
    },
  };
}

/** A loopback port nobody listens on now. */
export const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Resolves once `url` answers at all, trying every 50 ms up to `attempts` times. */
export async function waitFor(url, attempts) {
  for (let i = 0; i < attempts; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not answer`);
}

/**
 * This machine's cost of the memory a memory bomb fills, right now: milliseconds (median of 3)
 * to grow a fresh WebAssembly.Memory to 128 MiB, the default cap, and write one byte per
 * 4 KiB page. No program is stopped faster than its memory is first touched; on this
 * project's VM that varies from about 70 to over 400 ms with the host and with how much memory
 * was just freed. Measured in a child process, so the caller's RSS is not touched.
 */
export function firstTouch128MiB() {
  const script = `const times = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 2048 });
      memory.grow(2047);
      const bytes = new Uint8Array(memory.buffer);
      for (let at = 0; at < bytes.length; at += 4096) bytes[at] = 1;
      times.push(performance.now() - t);
    }
    console.log(JSON.stringify(times));`;
  return median(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })));
}
