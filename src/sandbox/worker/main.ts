/**
 * @module Worker thread entry: keeps a small stock of prepared QuickJS instances, runs each
 * execution on one, throws it away, and refills the stock while idle. A stock of two lets
 * a request that arrives right after another start at once, while the refill is still
 * waiting on WebAssembly instantiation.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostToWorker, WorkerInit, WorkerToHost } from '../protocol.ts';
import { HostLink } from './host-link.ts';
import { createInstance, type Instance } from './instance.ts';
import { JobRun } from './run-job.ts';

/** Prepared instances kept per worker (each owns a 16 MiB-minimum WebAssembly.Memory). */
const STOCK_SIZE = 2;

const init = workerData as WorkerInit;
const link = new HostLink(init.port, init.signal);
const port = parentPort!;
const stock: Instance[] = [];
let stockLimitBytes = init.memoryLimitBytes;
let filling: Promise<void> | undefined;

function send(message: WorkerToHost): void {
  port.postMessage(message);
}

/** Tops the stock up to STOCK_SIZE instances capped at `memoryLimitBytes`; one fill at a time. */
function refill(memoryLimitBytes: number): Promise<void> {
  if (memoryLimitBytes !== stockLimitBytes) {
    // A changed cap (hot reload): instances with the old one are dropped.
    stockLimitBytes = memoryLimitBytes;
    stock.length = 0;
  }
  filling ??= (async () => {
    while (stock.length < STOCK_SIZE) {
      const limit = stockLimitBytes;
      const instance = await createInstance(init.wasmModule, limit, init.stackLimitBytes);
      if (limit !== stockLimitBytes) continue;
      stock.push(instance);
      if (stock.length === 1) send({ type: 'ready' });
      for (const wake of waiting.splice(0)) wake();
    }
  })().finally(() => {
    filling = undefined;
  });
  return filling;
}

/** Takers waiting for the next prepared instance. */
const waiting: Array<() => void> = [];

async function take(memoryLimitBytes: number): Promise<Instance> {
  for (;;) {
    void refill(memoryLimitBytes);
    const instance = stock.shift();
    if (instance) return instance;
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
  // The used instance is dropped whole (memory and all).
  if (stock.length > 0) send({ type: 'ready' });
  void refill(job.memoryLimitBytes);
});

void refill(init.memoryLimitBytes);
