/** @module Test helpers: temp configs with real upstream servers, the real CLI, a real stdio client. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(ROOT, 'bin', 'codemux.js');
export const FIXTURE_SERVER = path.join(ROOT, 'test', 'fixtures', 'fixture-server.mjs');
export const MODULES = path.join(ROOT, 'node_modules', '@modelcontextprotocol');

/** The JSON text of an MCP `initialize` request (2025-11-25), for tests that speak HTTP without the SDK client. */
export function initializeBody(clientName = 't', id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    },
  });
}

export const SERVERS = {
  fixture: { name: 'fixture', command: process.execPath, args: [FIXTURE_SERVER] },
  everything: {
    name: 'everything',
    command: process.execPath,
    args: [path.join(MODULES, 'server-everything', 'dist', 'index.js'), 'stdio'],
  },
  memory: {
    name: 'memory',
    command: process.execPath,
    args: [path.join(MODULES, 'server-memory', 'dist', 'index.js')],
  },
} as const;

/**
 * A copy of the clone's example as shipped (examples/mcp_config.json, examples/files/hello.txt)
 * in a temp dir beside links to node_modules, bin and dist, so a test that runs the example
 * writes its API key, activity and memory there, never into the clone's examples/.
 */
export function exampleCopy(): { root: string; config: string; remove(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-example-'));
  for (const link of ['node_modules', 'bin', 'dist'])
    fs.symlinkSync(path.join(ROOT, link), path.join(root, link), 'dir');
  fs.mkdirSync(path.join(root, 'examples', 'files'), { recursive: true });
  for (const file of ['mcp_config.json', path.join('files', 'hello.txt')])
    fs.copyFileSync(path.join(ROOT, 'examples', file), path.join(root, 'examples', file));
  return {
    root,
    config: path.join(root, 'examples', 'mcp_config.json'),
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A stdio server entry that exits at once (code 3), and the count of its starts: each start
 * adds a byte to a file first. The gateway retries it with backoff, so the count is a clock
 * of the retry schedule that a negative check can wait on ("by the third try, X did not happen").
 */
export function failingServer(): {
  entry: { command: string; args: string[]; env: Record<string, string> };
  starts(): number;
} {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-starts-')), 'starts');
  const code = "require('node:fs').appendFileSync(process.env.STARTS_FILE, 'x'); process.exit(3)";
  return {
    entry: { command: process.execPath, args: ['-e', code], env: { STARTS_FILE: file } },
    starts: () => (fs.existsSync(file) ? fs.statSync(file).size : 0),
  };
}

/** Writes a config file in a fresh temp dir; returns its path. */
export function writeConfig(config: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codemux-test-'));
  const file = path.join(dir, 'mcp_config.json');
  const memoryFile = path.join(dir, 'memory.jsonl');
  const list = Array.isArray(config.mcpServers)
    ? (config.mcpServers as Array<{ name: string }>)
    : undefined;
  const servers = list?.map((s) =>
    s.name === 'memory' ? { ...s, env: { MEMORY_FILE_PATH: memoryFile } } : s,
  );
  fs.writeFileSync(
    file,
    JSON.stringify({ ...config, ...(servers ? { mcpServers: servers } : {}) }, null, 2),
  );
  return file;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as JSON, without `activity_id` (each run has its own; see activityId). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary CLI JSON
  json: any;
  /** The `activity_id` that `code exec` printed, if any. */
  activityId?: string;
}

/** Runs the real `codemux` command and parses its stdout as JSON. */
export function runCli(
  args: string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      let activityId: string | undefined;
      try {
        json = JSON.parse(stdout);
        if (json && typeof json === 'object' && 'activity_id' in json) {
          const { activity_id, ...rest } = json as { activity_id: string };
          activityId = activity_id;
          json = rest;
        }
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json, activityId });
    });
  });
}

/**
 * Reads `read` every `everyMs` until `done` holds of its value or `ms` pass; the last value read
 * (the caller's expect then says what is wrong). With `until`, the one poll interval of the
 * tests: they wait for conditions, never for a fixed time.
 */
export async function settle<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls `probe` every `everyMs` until it gives a value, which it returns; past `ms`, throws naming `what`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 15_000,
  everyMs = 100,
): Promise<T> {
  const value = await settle(probe, (v) => v !== undefined, ms, everyMs);
  if (value === undefined) throw new Error(`timed out waiting for ${what}`);
  return value;
}
