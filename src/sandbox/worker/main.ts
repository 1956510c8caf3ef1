/**
 * @module Worker thread entry: keeps prepared QuickJS instances per memory cap (for the two
 * caps used last) and runs each execution on one. When the start-up self-test passes, one
 * instance per cap is reused: after each run, off the request path, it is restored in place
 * to its snapshot (snapshot.ts). Otherwise each run gets a fresh instance, thrown away after,
 * and a stock of two lets a request that arrives right after another start at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostToWorker, WorkerInit, WorkerToHost } from '../protocol.ts';
import { HostLink } from './host-link.ts';
import { createInstance, type Instance } from './instance.ts';
import type { Layout } from './quickjs-internals.ts';
import { JobRun } from './run-job.ts';
import { setUpEngine } from './self-test.ts';
import { Snapshot } from './snapshot.ts';

/** Prepared instances kept per cap: restored ones are reused, fresh ones are used once. */
const RESTORED_STOCK_SIZE = 1;
const FRESH_STOCK_SIZE = 2;
/** Memory caps whose stock is kept; older ones are dropped. */
const CAPS_KEPT = 2;

interface Prepared {
  instance: Instance;
  /** Present when the instance is restored after each run instead of thrown away. */
  snapshot?: Snapshot;
}

const init = workerData as WorkerInit;
const link = new HostLink(init.port, init.signal);
const port = parentPort!;
/** Prepared instances by memory cap, the cap used last at the end. */
const stocks = new Map<number, Prepared[]>();
/** Takers waiting for the next prepared instance. */
const waiting: Array<() => void> = [];
let current = init.memoryLimitBytes;
/** True while a refill runs (there is one at a time). */
let refilling = false;
/** Set when the self-test passed and every snapshot so far held. */
let layout: Layout | undefined;
/** Fresh mode: jobs run, and the job count until which new instances get Intl compiled ahead. */
let jobsRun = 0;
let intlUntilJob = 0;
/** After a job used Intl, this many following fresh instances get it compiled ahead, off the request path. */
const INTL_PRELOAD_JOBS = 32;

function send(message: WorkerToHost): void {
  port.postMessage(message);
}

let announced = false;
/**
 * Tells the host a prepared instance is waiting: a message the first time (the worker is up),
 * then the shared flag alone; a message after every run woke the host's thread once more.
 */
function announcePrepared(): void {
  link.setPrepared(true);
  if (announced) return;
  announced = true;
  send({ type: 'ready' });
}

/** Leaves restore mode for good (an instance broke an assumption the self-test checked). */
function fallBack(reason: string): void {
  if (!layout) return;
  layout = undefined;
  send({ type: 'engine', mode: 'fresh', warning: reason });
}

/** The stock for `cap`, made the most recent; the least recent cap beyond CAPS_KEPT is dropped. */
function use(cap: number): Prepared[] {
  const stock = stocks.get(cap) ?? [];
  stocks.delete(cap);
  stocks.set(cap, stock);
  current = cap;
  if (stocks.size > CAPS_KEPT) stocks.delete(stocks.keys().next().value!);
  return stock;
}

async function prepare(cap: number): Promise<Prepared> {
  // A restored instance has Intl compiled before its snapshot: one compiled later would live in
  // memory the restore takes back, while its handle stayed on the JS side.
  const instance = await createInstance(
    init.wasm,
    cap,
    init.stackLimitBytes,
    layout !== undefined || jobsRun < intlUntilJob,
  );
  if (!layout) return { instance };
  try {
    return { instance, snapshot: new Snapshot(instance, layout, init.stackLimitBytes) };
  } catch (error) {
    fallBack(`snapshot refused: ${(error as Error).message}`);
    return { instance };
  }
}

/** Tops up the stock of the cap used last; one fill at a time. */
function refill(): void {
  if (refilling) return;
  refilling = true;
  void (async () => {
    for (;;) {
      const cap = current;
      const stock = use(cap);
      if (stock.length >= (layout ? RESTORED_STOCK_SIZE : FRESH_STOCK_SIZE)) return;
      const prepared = await prepare(cap);
      stocks.get(cap)?.push(prepared);
      announcePrepared();
      for (const wake of waiting.splice(0)) wake();
    }
  })().finally(() => {
    refilling = false;
  });
}

async function take(cap: number): Promise<Prepared> {
  for (;;) {
    const prepared = use(cap).shift();
    // Refilling starts after the run (see the message handler), never before it.
    if (prepared) return prepared;
    refill();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

/** After a run: the instance goes back to its snapshot and into the stock, or is dropped whole. */
function recycle(prepared: Prepared, cap: number): void {
  const { snapshot } = prepared;
  // Memory never shrinks: a much grown instance is replaced by a fresh one (refill).
  if (!snapshot || !layout || snapshot.grown) return;
  const restored = snapshot.restore();
  if (!restored.ok) {
    fallBack(`restore refused: ${restored.reason}`);
    return;
  }
  stocks.get(cap)?.push(prepared);
}

// Executions arrive one at a time: the host sends the next only after 'done'.
port.on('message', async (message: HostToWorker) => {
  const { execId, job } = message;
  const cap = job.memoryLimitBytes;
  const prepared = await take(cap);
  link.reset();
  const run = new JobRun(prepared.instance, job, execId, link);
  const outcome = run.run();
  link.post(run.withClock({ type: 'done', execId, outcome }));
  jobsRun++;
  if (prepared.instance.usedIntl) intlUntilJob = jobsRun + INTL_PRELOAD_JOBS;
  recycle(prepared, cap);
  if ((stocks.get(current)?.length ?? 0) > 0) announcePrepared();
  refill();
});

const setup = await setUpEngine(
  init.wasm,
  init.memoryLimitBytes,
  init.stackLimitBytes,
  init.restoreFault,
);
if (setup.mode === 'restore') {
  layout = setup.layout;
  send({ type: 'engine', mode: 'restore' });
  use(init.memoryLimitBytes).push({ instance: setup.prepared.instance, snapshot: setup.prepared });
  announcePrepared();
} else {
  send({ type: 'engine', mode: 'fresh', warning: `snapshot self-test failed: ${setup.reason}` });
  use(init.memoryLimitBytes);
}
refill();
