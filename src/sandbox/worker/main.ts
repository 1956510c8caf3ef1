/**
 * @module Worker thread entry: keeps a small stock of prepared QuickJS instances, runs each
 * execution on one, throws it away, and refills the stock while idle. A stock of two lets
 * a request that arrives right after another start at once, while the refill is still
 * waiting on WebAssembly instantiation. Stocks are kept per memory cap (code_execution and
 * execute have different ones), for the two caps used last.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostToWorker, WorkerInit, WorkerToHost } from '../protocol.ts';
import { HostLink } from './host-link.ts';
import { createInstance, type Instance } from './instance.ts';
import { JobRun } from './run-job.ts';

/** Prepared instances kept per cap (each owns a 16 MiB-minimum WebAssembly.Memory). */
const STOCK_SIZE = 2;
/** Memory caps whose stock is kept; older ones are dropped. */
const CAPS_KEPT = 2;

const init = workerData as WorkerInit;
const link = new HostLink(init.port, init.signal);
const port = parentPort!;
/** Prepared instances by memory cap, the cap used last at the end. */
const stocks = new Map<number, Instance[]>();
/** Takers waiting for the next prepared instance. */
const waiting: Array<() => void> = [];
let current = init.memoryLimitBytes;
/** True while a refill runs (there is one at a time). */
let refilling = false;
/** Jobs run, and the job count until which new instances are prepared with Intl compiled. */
let jobsRun = 0;
let intlUntilJob = 0;
/** After a job used Intl, this many following instances get it compiled ahead, off the request path. */
const INTL_PRELOAD_JOBS = 32;

function send(message: WorkerToHost): void {
  port.postMessage(message);
}

/** The stock for `cap`, made the most recent; the least recent cap beyond CAPS_KEPT is dropped. */
function use(cap: number): Instance[] {
  const stock = stocks.get(cap) ?? [];
  stocks.delete(cap);
  stocks.set(cap, stock);
  current = cap;
  if (stocks.size > CAPS_KEPT) stocks.delete(stocks.keys().next().value!);
  return stock;
}

/** Tops up the stock of the cap used last; one fill at a time. */
function refill(): void {
  if (refilling) return;
  refilling = true;
  void (async () => {
    for (;;) {
      const cap = current;
      const stock = use(cap);
      if (stock.length >= STOCK_SIZE) return;
      const instance = await createInstance(
        init.wasmModule,
        cap,
        init.stackLimitBytes,
        jobsRun < intlUntilJob,
      );
      stocks.get(cap)?.push(instance);
      send({ type: 'ready' });
      for (const wake of waiting.splice(0)) wake();
    }
  })().finally(() => {
    refilling = false;
  });
}

async function take(cap: number): Promise<Instance> {
  for (;;) {
    const instance = use(cap).shift();
    // Refilling starts after the run (see the message handler), never before it.
    if (instance) return instance;
    refill();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

// Executions arrive one at a time: the host sends the next only after 'done'.
port.on('message', async (message: HostToWorker) => {
  const { execId, job } = message;
  const instance = await take(job.memoryLimitBytes);
  link.reset();
  const outcome = new JobRun(instance, job, execId, link).run();
  link.post({ type: 'done', execId, outcome });
  jobsRun++;
  if (instance.usedIntl) intlUntilJob = jobsRun + INTL_PRELOAD_JOBS;
  // The used instance is dropped whole (memory and all).
  if ((stocks.get(current)?.length ?? 0) > 0) send({ type: 'ready' });
  refill();
});

use(init.memoryLimitBytes);
refill();
