/** @module Runs `codemux serve`: the gateway (MCP over HTTP, REST), with live upstreams and a watched config. */
import { TRACE_FLUSH_MS } from '../config/defaults.ts';
import { ConfigFile, logFormatFrom, logLevelFrom, watchConfig } from '../config/index.ts';
import { createRuntime, policyCounts, policyCountsText } from '../execution/index.ts';
import { HttpGateway, VERSION } from '../http/index.ts';
import { ensureAdminKey } from '../store/index.ts';
import { shownEndpoint, startTracing, stopTracing, traceLogFields } from '../telemetry/index.ts';
import { startMetrics } from '../telemetry/metrics.ts';
import type { ServerStatus } from '../upstream/index.ts';
import { createLogger } from '../util/logger.ts';
import { CliError } from './cli-error.ts';
import { EXIT_FAILED, EXIT_USAGE } from './exit-codes.ts';
import { loadConfigOrExit } from './load-config.ts';
import { oauthOf, openStoreOrExit } from './open-store.ts';

export interface ServeFlags {
  config?: string;
  listen?: string;
  logLevel?: string;
  logFormat?: string;
}

const say = (line = '') => process.stdout.write(`${line}\n`);
/** After the grace, how long the answers of cut-off executions may take to be sent. */
const RESPONSE_FLUSH_MS = 1_000;
/** Beyond the grace, how long shutdown may take before the process exits anyway. */
const SHUTDOWN_FAILSAFE_MS = 15_000;

/** Starts the gateway and serves until SIGINT/SIGTERM. */
export async function runServe(flags: ServeFlags): Promise<void> {
  const config = loadConfigOrExit(flags);
  if (!config) return;
  const file = config.path!;
  // With traces on, each line written inside a span carries its trace_id and span_id.
  const logger = createLogger(
    logLevelFrom(flags.logLevel, 'info'),
    logFormatFrom(flags.logFormat),
    config.traces ? traceLogFields : undefined,
  );
  // Before anything connects: upstream HTTP requests carry the span's traceparent header.
  await startTracing(config, logger);
  const key = ensureAdminKey(config);
  const store = await openStoreOrExit(config, { activityWriter: true });
  const oauth = oauthOf(store, config);
  // A key given in the environment is checked now, not at the first sign-in.
  if (process.env.CODEMUX_SECRET_KEY !== undefined) {
    try {
      oauth.secretBox();
    } catch (error) {
      await store.close();
      throw new CliError((error as Error).message, EXIT_USAGE);
    }
  }
  const unbounded = config.servers.filter((s) => s.clusterMaxConcurrentRequests !== undefined);
  if (unbounded.length > 0 && !store.clusterSlots) {
    logger.warn(
      { servers: unbounded.map((s) => s.name) },
      'cluster_max_concurrent_requests needs database_url (PostgreSQL); it has no effect on SQLite',
    );
  }
  // Before the runtime, which tells the metrics where their gauges read (telemetry.metrics).
  if (config.telemetry.metrics) await startMetrics();
  const runtime = createRuntime(config, logger, {
    live: true,
    warmWorkers: 2,
    codeToolStore: store.codeTools,
    activityStore: store.activity,
    toolPinStore: store.toolPins,
    approvalStore: store.approvals,
    executionRunStore: store.executionRuns,
    runJournalStore: store.runJournals,
    clusterSlots: store.clusterSlots,
    oauth,
  });
  // Watch from the moment the config is loaded: an edit during the warm-up is not lost.
  const watch = watchConfig(
    file,
    config,
    async (next, text) => {
      if (next.listen !== config.listen) logger.warn('a changed "listen" applies after a restart');
      await runtime.applyConfig(
        next,
        text === configFile.lastWritten ? 'written over REST or the dashboard' : 'edited by hand',
      );
    },
    logger,
    { listen: flags.listen },
  );
  const stopWatching = watch.stop;
  // Server changes from REST and the dashboard are written to the file, then applied at once.
  const configFile = new ConfigFile(file, {
    listen: flags.listen,
    onWritten: watch.reload,
    mayCreate: config.missing === true,
  });
  const gateway = new HttpGateway({
    runtime,
    tokens: store.tokens,
    adminKey: key.key,
    host: config.listenHost,
    port: config.listenPort,
    logger,
    configFile,
  });
  // Handlers first: a signal during start-up must still end the upstreams it spawned.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = runtime.config().shutdownGraceMs;
    logger.info({ signal, grace_ms: graceMs }, 'codemux stopping');
    stopWatching();
    // Last resort: the steps below are bounded, but a stuck exit must never hang the host.
    setTimeout(() => process.exit(EXIT_FAILED), graceMs + SHUTDOWN_FAILSAFE_MS).unref();
    gateway.beginDrain();
    await runtime.drain(graceMs);
    // Upstreams (those still starting too) end while the last responses go out.
    await Promise.all([runtime.stop(), gateway.flush(RESPONSE_FLUSH_MS)]);
    await gateway.stop();
    // Every span has ended: the last ones are sent, within a bounded wait.
    await stopTracing(TRACE_FLUSH_MS);
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    await gateway.start();
  } catch (error) {
    stopWatching();
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const change = flags.listen
      ? 'choose another with --listen HOST:PORT'
      : `change it with --listen HOST:PORT or the "listen" field of ${file}`;
    process.stderr.write(
      inUse
        ? `codemux: cannot listen on ${config.listen}: the address is already in use (another codemux?); ${change}\n`
        : `codemux: cannot listen on ${config.listen}: ${(error as Error).message}; ${change}\n`,
    );
    await runtime.stop();
    await stopTracing(TRACE_FLUSH_MS);
    await store.close();
    process.exitCode = EXIT_FAILED;
    return;
  }
  await runtime.start();
  if (stopping) return;
  const base = `http://${config.listen}`;
  say(`codemux ${VERSION} listening on ${base}`);
  say(
    `  MCP (Streamable HTTP)  ${base}/mcp${config.requireMcpAuth ? '  (API key or agent token required)' : '  (open on loopback)'}`,
  );
  say(`  MCP (legacy SSE)       ${base}/sse`);
  say(`  REST                   ${base}/api/v1  (X-API-Key or Authorization: Bearer)`);
  say(`  Dashboard              ${base}/ui/  (sign in with the API key)`);
  say(
    `  API key                ${key.source === 'file' ? key.file : 'from the config (api_key or CODEMUX_API_KEY)'}`,
  );
  // Only a gateway sharing PostgreSQL is one instance among several.
  if (config.databaseUrl) {
    say(
      `  instance               ${config.instanceId}, sharing PostgreSQL (${config.databaseUrlSource})`,
    );
  }
  if (config.traces) {
    say(
      `  traces                 ${shownEndpoint(config.traces.endpoint)} (OTLP/HTTP, from ${config.traces.endpointSource})`,
    );
  }
  say(
    config.missing
      ? `  config                 ${file} (not found: no servers yet; create it and it is picked up)`
      : `  config                 ${file}`,
  );
  // One line per server now, then one per change of state (a server that keeps failing with
  // reconnect backoff is not repeated).
  const shown = new Map<string, string>();
  const line = (s: ServerStatus) => {
    shown.set(s.name, s.state);
    if (s.state === 'ready') return `    ${s.name.padEnd(20)} ready (${s.tools} tools)`;
    if (s.state === 'failed') return `    ${s.name.padEnd(20)} failed: ${s.last_error ?? ''}`;
    if (s.state === 'needs_auth') {
      return `    ${s.name.padEnd(20)} needs sign-in: run \`codemux auth login ${s.name}\` (${s.last_error ?? ''})`;
    }
    return `    ${s.name.padEnd(20)} ${s.protocol.padEnd(6)} ${s.state}`;
  };
  const servers = runtime.registry.status();
  // The server lines and, when every server is settled already, the policy line go out in one
  // write: a reader that sees every server settled sees the policy line with them.
  const serverLines = [`  upstream servers (${servers.length}):`, ...servers.map(line)];
  // Tools are known once servers are ready: the policy line follows once no server is still
  // connecting (one line, whatever order they start in), and again when it changes (a tools/
  // list_changed, a new tool_policy). Written with the line that caused it, in one write.
  let policyShown: string | undefined;
  const policyLine = (): string | undefined => {
    const states = [...shown.values()];
    if (!states.includes('ready') || states.some((s) => s === 'connecting' || s === 'idle')) {
      return undefined;
    }
    const counts = policyCounts(
      runtime.config().toolPolicy,
      runtime.registry
        .status()
        .map((s) => ({ name: s.name, tools: runtime.registry.tools(s.name) })),
    );
    const text = `  tool policy            ${policyCountsText(counts)} (tool_policy)`;
    if (text === policyShown) return undefined;
    policyShown = text;
    return text;
  };
  runtime.registry.on('state', (name: string, state: string) => {
    if (
      (state !== 'ready' && state !== 'failed' && state !== 'needs_auth') ||
      shown.get(name) === state
    ) {
      return;
    }
    const status = runtime.registry.status().find((s) => s.name === name);
    if (!status) return;
    const server = line(status);
    const policy = policyLine();
    say(policy ? `${server}\n${policy}` : server);
  });
  runtime.registry.on('tools', () => {
    const policy = policyLine();
    if (policy) say(policy);
  });
  const policy = policyLine();
  say([...serverLines, ...(policy ? [policy] : [])].join('\n'));
}
