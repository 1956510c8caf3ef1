/**
 * @module Worker thread entry: keeps one prepared QuickJS instance ready, runs each
 * execution on it, throws it away, and prepares the next one while idle.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostToWorker, WorkerInit, WorkerToHost } from '../protocol.ts';
import { HostLink } from './host-link.ts';
import { createInstance, type Instance } from './instance.ts';
import { JobRun } from './run-job.ts';

const init = workerData as WorkerInit;
const link = new HostLink(init.port, init.signal);
const port = parentPort!;

let next: Promise<Instance>;

function send(message: WorkerToHost): void {
  port.postMessage(message);
}

prepare(init.memoryLimitBytes);

async function instanceFor(memoryLimitBytes: number): Promise<Instance> {
  const prepared = await next;
  if (prepared.memoryLimitBytes === memoryLimitBytes) return prepared;
  return createInstance(init.wasmModule, memoryLimitBytes, init.stackLimitBytes);
}

// Executions arrive one at a time: the host sends the next only after 'done'.
port.on('message', async (message: HostToWorker) => {
  const { execId, job } = message;
  const instance = await instanceFor(job.memoryLimitBytes);
  link.reset();
  const outcome = new JobRun(instance, job, execId, link).run();
  link.post({ type: 'done', execId, outcome });
  // The used instance is dropped whole (memory and all); the next one is built now, off the request path.
  prepare(job.memoryLimitBytes);
});

/** Builds the next instance and tells the host when it is ready. */
function prepare(memoryLimitBytes: number): void {
  next = createInstance(init.wasmModule, memoryLimitBytes, init.stackLimitBytes);
  next.then(
    () => send({ type: 'ready' }),
    (error: unknown) => {
      throw error;
    },
  );
}
