// The floor of codemux's design for the ten-call figure (bench/e2e.js): a bare relay built the way
// codemux is, with none of its code. A worker thread makes sync calls (postMessage, then
// Atomics.wait for the reply, as the sandbox's call_tool does); this thread forwards each with an
// SDK client to a stdio upstream and posts the answer back. No QuickJS, no gate, no envelope, no
// history: what is left is the two thread hand-offs a call and the gateway's own SDK client.
import { MessageChannel, Worker } from 'node:worker_threads';

const WORKER = `const { workerData: { calls, jobs, signal }, receiveMessageOnPort } = require('node:worker_threads');
const flag = new Int32Array(signal);
jobs.on('message', ({ n, request }) => {
  for (let i = 0; i < n; i++) {
    const seen = Atomics.load(flag, 0);
    calls.postMessage(request);
    let reply;
    while (!(reply = receiveMessageOnPort(calls))) Atomics.wait(flag, 0, seen, 1000);
    JSON.parse(reply.message);
  }
  jobs.postMessage('done');
});`;

/**
 * Starts the relay over `client` (an SDK client connected to the upstream). `program(n)`
 * resolves when the worker has made n sequential calls of `tool` with `args`.
 */
export function startRelay(client, tool, args) {
  const calls = new MessageChannel();
  const jobs = new MessageChannel();
  const signal = new SharedArrayBuffer(4);
  const flag = new Int32Array(signal);
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { calls: calls.port2, jobs: jobs.port2, signal },
    transferList: [calls.port2, jobs.port2],
  });
  calls.port1.on('message', async (request) => {
    const { name, arguments: callArgs } = JSON.parse(request);
    const result = await client.callTool({ name, arguments: callArgs });
    calls.port1.postMessage(JSON.stringify(result));
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
  const request = JSON.stringify({ name: tool, arguments: args });
  return {
    program: (n) =>
      new Promise((resolve) => {
        jobs.port1.once('message', resolve);
        jobs.port1.postMessage({ n, request });
      }),
    async close() {
      calls.port1.close();
      jobs.port1.close();
      await worker.terminate();
    },
  };
}
