/** @module Starts a real `codemux serve` on a free loopback port for tests, and stops it. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, settle, until } from './helpers.ts';
import { freePort } from './http-servers.ts';

export interface RunningGateway {
  url: string;
  key: string;
  configFile: string;
  child: ChildProcess;
  output(): string;
  /** REST call with the admin key unless `headers` say otherwise. */
  rest(
    method: string,
    route: string,
    body?: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
  ): Promise<{ status: number; json: any }>;
  stop(): Promise<number | null>;
}

/** Ports a start tries: a free port can be taken by a test running in parallel before the gateway binds it. */
const START_ATTEMPTS = 3;

/** How to start: the gateway's environment, and its admin key when the config names it through a variable. */
export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  key?: string;
  /** A port chosen beforehand (a redirect URI registered with it); else a free one. */
  port?: number;
  /** How long the start may take (20 s unless given). */
  startMs?: number;
}

/** Starts `codemux serve` with `configFile`, whose listen is set to a free port first (so the CLI finds it). */
export async function startGateway(
  configFile: string,
  options: StartOptions = {},
): Promise<RunningGateway> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(configFile, options);
    } catch (error) {
      const taken = (error as Error).message.includes('the address is already in use');
      if (!taken || attempt === START_ATTEMPTS) throw error;
    }
  }
}

async function startOnFreePort(configFile: string, options: StartOptions): Promise<RunningGateway> {
  const port = options.port ?? (await freePort());
  const raw = JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(configFile, JSON.stringify({ ...raw, listen: `127.0.0.1:${port}` }, null, 2));
  const child = spawn(process.execPath, [BIN, 'serve', '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      'codemux serve to start',
      async () => {
        if (child.exitCode !== null) throw new Error('codemux serve exited');
        // The port answers before the sandbox is warm; the banner says the gateway is ready.
        const response = await fetch(`${url}/healthz`).catch(() => undefined);
        return response?.ok && out.includes(' listening on ') ? true : undefined;
      },
      options.startMs ?? 20_000,
      50,
    );
  } catch {
    child.kill();
    throw new Error(`codemux serve did not start:\n${out}`);
  }
  const dataDir = path.join(path.dirname(configFile), 'data');
  const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as { api_key?: string };
  const key =
    options.key ?? config.api_key ?? fs.readFileSync(path.join(dataDir, 'api_key'), 'utf8').trim();
  return {
    url,
    key,
    configFile,
    child,
    output: () => out,
    async rest(method, route, body, headers) {
      const response = await fetch(`${url}${route}`, {
        method,
        headers: headers ?? { 'x-api-key': key, 'content-type': 'application/json' },
        body:
          body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Waits until every upstream of `gateway` is ready (at most `timeoutMs`). */
export async function waitUntilReady(gateway: RunningGateway, timeoutMs = 10_000): Promise<void> {
  // Past the deadline it returns all the same: the test's own checks say what is wrong.
  await settle(
    async () => (await gateway.rest('GET', '/api/v1/servers')).json.value.servers,
    (servers: Array<{ state: string }>) => servers.every((s) => s.state === 'ready'),
    timeoutMs,
  );
}

/** What a fixture server's `stats` tool tells. */
export interface FixtureStats {
  peak: number;
  cancelled: number;
  calls: number;
  inFlight: number;
}

/**
 * Waits until the `stats` of `server` (a fixture server) of `gateway` satisfy `holds`: the
 * positive sign that earlier calls reached the upstream (in flight, peak, cancelled).
 */
export async function untilFixture(
  gateway: RunningGateway,
  what: string,
  holds: (stats: FixtureStats) => boolean,
  server = 'fixture',
): Promise<FixtureStats> {
  const code = `JSON.parse(call_tool('${server}', 'stats', {}).result.content[0].text)`;
  return until(what, async () => {
    const stats: FixtureStats = (await gateway.rest('POST', '/api/v1/code/exec', { code })).json
      .value;
    return holds(stats) ? stats : undefined;
  });
}

/** Waits until `server` (a fixture server) of `gateway` has at least one sleep call in flight. */
export const untilInFlight = (gateway: RunningGateway, server = 'fixture') =>
  untilFixture(gateway, `a call in flight at ${server}`, (s) => s.inFlight > 0, server);

/**
 * An MCP client (1.x SDK, Streamable HTTP) on `route` of `gateway`, with its admin key; a
 * gateway with its own `fetch` (test/in-process.ts: the app in this process) is reached through it.
 */
export async function adminClient(
  gateway: Pick<RunningGateway, 'url' | 'key'> & {
    fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
  },
  route: string,
  name = 'codemux-test',
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}${route}`), {
      requestInit: { headers: { 'x-api-key': gateway.key } },
      ...(gateway.fetch ? { fetch: gateway.fetch } : {}),
    }),
  );
  return client;
}
