/** @module Starts server-everything over Streamable HTTP or SSE on a free loopback port, for tests. */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ROOT, settle } from './helpers.ts';

const ENTRY = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/** Spawns server-everything with `transport` and waits until its port answers. */
export function startEverything(transport: 'streamableHttp' | 'sse'): Promise<RunningServer> {
  return startListening(
    [ENTRY, transport],
    `server-everything (${transport})`,
    transport === 'sse' ? '/sse' : '/mcp',
  );
}

/** Spawns `node args` with a free PORT in its environment and waits until that port answers. */
export async function startListening(
  args: string[],
  name: string,
  path: string,
): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  if (!(await settle(listening, (open) => open, 15_000, 50)))
    throw new Error(`${name} did not listen on ${port}`);
  return {
    url: `http://127.0.0.1:${port}${path}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
