/**
 * @module Starts a throwaway PostgreSQL server (Debian's binaries) on a free loopback port: the
 * test run's shared one (test/setup/postgres.ts), a private one for a file that stops it, the
 * cluster benchmarks'. initdb and postgres run as the `postgres` user when the tests run as root
 * (initdb refuses root), in a temp dir removed afterwards. Missing binaries fail with one line
 * saying how to install them (test/system-parts.ts): CI installs them.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './http-servers.ts';
import { postgresBinDir } from './system-parts.ts';

const START_TIMEOUT_MS = 30_000;

export interface RunningPostgres {
  /** A URL for a fresh database named `name` (created on the first call). */
  database(name: string): Promise<string>;
  port: number;
  /** Stops the server (every client is disconnected), waits `downMs`, starts it again on the same data and port. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Spawn options that run a command as the postgres user when we are root. */
function asPostgres(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** Starts a server with fsync off; call stop() in afterAll. */
export async function startPostgres(): Promise<RunningPostgres> {
  const bin = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-pg-'));
  const user = asPostgres();
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid!);
  const data = path.join(dir, 'data');
  const initArgs = ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'];
  execFileSync(path.join(bin, 'initdb'), initArgs, { stdio: 'pipe', cwd: dir, ...user });
  const port = await freePort();
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ];
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  // A test run that ends without stop() (a hook timeout, a crash) must not leave the server behind.
  const onExit = () => {
    child?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  /** Spawns the server on the data dir and waits until it accepts connections. */
  const launch = async () => {
    const server = spawn(path.join(bin, 'postgres'), args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      cwd: dir,
      ...user,
    });
    child = server;
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const client = new pg.Client({ connectionString: admin });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => {});
        if (server.exitCode !== null || Date.now() > deadline) {
          process.removeListener('exit', onExit);
          onExit();
          throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${stderr}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  /** Fast shutdown (SIGINT): clients are disconnected at once. */
  const halt = async () => {
    const server = child;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGINT');
    const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  await launch();

  const created = new Set<string>();
  return {
    port,
    async database(name) {
      if (!created.has(name)) {
        const client = new pg.Client({ connectionString: admin });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name}"`);
        } finally {
          await client.end();
        }
        created.add(name);
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async restart(downMs = 0) {
      await halt();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    async stop() {
      process.removeListener('exit', onExit);
      await halt();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
