/**
 * @module The upstream servers of the active config: connections (started on first use,
 * or all at once in live mode with reconnects), per-server concurrency limits, states for
 * the status surfaces, hot config updates, and calls that always come back as a CallOutcome.
 */
import { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { UPSTREAM_RETRY_AFTER_MS } from '../config/defaults.ts';
import type { ServerConfig } from '../config/index.ts';
import { didYouMean } from '../util/did-you-mean.ts';
import type { Logger } from '../util/logger.ts';
import { ConcurrencyLimiter } from './limiter.ts';
import { NeedsAuthError, needsSignInMessage } from './oauth/needs-auth.ts';
import type { UpstreamAuth } from './oauth/types.ts';
import { StopSchedule } from './process-reaper.ts';
import type { Entry } from './registry-entry.ts';
import { SdkConnection } from './sdk-connection.ts';
import { sendCall } from './send-call.ts';
import type {
  CallOptions,
  CallOutcome,
  ClusterSlots,
  ServerState,
  ServerStatus,
  ToolInfo,
  UpstreamConnection,
} from './types.ts';

/** Reconnect backoff in live mode: 250 ms, doubling, at most 30 s. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 30_000;

export type ConnectionFactory = (
  server: ServerConfig,
  logger: Logger,
  maxMessageBytes?: () => number,
  schedule?: StopSchedule,
  auth?: UpstreamAuth,
) => UpstreamConnection;

/** What ensureStarted answers for a connected server. */
const STARTED = { ok: true } as const;

const sdkFactory: ConnectionFactory = (server, logger, maxMessageBytes, schedule, auth) =>
  new SdkConnection(server, logger, maxMessageBytes, schedule, auth);

export interface RegistryOptions {
  /** Live (the gateway): connect every enabled server at start and reconnect after drops. */
  live?: boolean;
  factory?: ConnectionFactory;
  /** Cluster-wide slots for servers with `cluster_max_concurrent_requests` (PostgreSQL). */
  clusterSlots?: ClusterSlots;
  /** The largest message an upstream may send (config's maxUpstreamMessageBytes, read per message). */
  maxMessageBytes?: () => number;
  /** Asked just before a call is sent, with the tool as listed now: a refusal keeps it unsent (pinning). */
  admit?: (server: string, tool: ToolInfo) => { code: 'TOOL_CHANGED'; message: string } | undefined;
  /** The OAuth side of an http/sse server's connection (upstream/oauth). */
  auth?: (server: ServerConfig) => UpstreamAuth | undefined;
}

/**
 * Emits 'tools' when any server's tool list changed, 'state' when a server's state did, and
 * 'log' (server name, UpstreamLog) for each log notification an upstream sends.
 */
export class UpstreamRegistry extends EventEmitter {
  private readonly entries = new Map<string, Entry>();
  private readonly live: boolean;
  private readonly factory: ConnectionFactory;
  private readonly clusterSlots?: ClusterSlots;
  private readonly maxMessageBytes?: () => number;
  private running = false;
  /** Once stopped, start() does nothing (a signal may arrive while the gateway starts). */
  private stopped = false;
  /** Connections of removed servers that are still closing; stop() waits for them too. */
  private readonly retiring = new Set<Promise<void>>();
  /** How stdio children are ended: politely on a reload, hurried once the registry stops. */
  private readonly schedule = new StopSchedule();
  private toolsVersion = 0;

  constructor(
    servers: readonly ServerConfig[],
    private readonly logger: Logger,
    private readonly options: RegistryOptions = {},
  ) {
    super();
    // Every MCP session listens for upstream logs (and tool changes) until it closes: with more
    // than ten clients, Node's leak warning would fire for listeners that are not leaked.
    this.setMaxListeners(0);
    this.live = options.live ?? false;
    this.factory = options.factory ?? sdkFactory;
    this.clusterSlots = options.clusterSlots;
    this.maxMessageBytes = options.maxMessageBytes;
    for (const config of servers) this.add(config);
    this.on('tools', () => this.toolsVersion++);
  }

  /** Changes whenever any server's tool list (or the server set) changes. */
  get version(): number {
    return this.toolsVersion;
  }

  private add(config: ServerConfig): Entry {
    const auth = this.options.auth?.(config);
    const entry: Entry = {
      config,
      auth,
      connection: this.factory(
        config,
        this.logger.child({ server: config.name }),
        this.maxMessageBytes,
        this.schedule,
        auth,
      ),
      limiter: new ConcurrencyLimiter(config.maxConcurrentRequests, config.queueSize),
      state: !config.enabled ? 'disabled' : config.quarantined ? 'quarantined' : 'idle',
      attempts: 0,
      removed: false,
    };
    entry.connection.onClose = (reason) => this.onDropped(entry, reason);
    entry.connection.onToolsChanged = () => this.emit('tools', config.name);
    entry.connection.onLog = (message) => this.emit('log', config.name, message);
    if (auth) {
      auth.onNeedsSignIn = (reason) => this.needsSignIn(entry, reason);
      auth.onSignedIn = () => this.signedIn(entry);
    }
    this.entries.set(config.name, entry);
    return entry;
  }

  private setState(entry: Entry, state: ServerState, error?: string): void {
    entry.state = state;
    if (error !== undefined) entry.lastError = error;
    this.emit('state', entry.config.name, state);
  }

  /** Live mode: connects every enabled, unquarantined server in parallel; resolves at once. */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    for (const entry of this.entries.values()) this.connectInBackground(entry);
  }

  private connectInBackground(entry: Entry): void {
    if (!this.running || entry.state === 'disabled' || entry.state === 'quarantined') return;
    void this.ensureStarted(entry.config.name).then((result) => {
      if (!result.ok && this.live && !entry.removed && entry.needsAuth === undefined) {
        this.scheduleReconnect(entry);
      }
    });
  }

  /** The server waits for an OAuth sign-in: its connection ends and nothing retries it. */
  private needsSignIn(entry: Entry, reason: string): void {
    if (entry.removed) return;
    entry.needsAuth = reason;
    clearTimeout(entry.reconnect);
    entry.reconnect = undefined;
    if (entry.state !== 'needs_auth') {
      this.setState(entry, 'needs_auth', reason);
      this.emit('tools', entry.config.name);
    }
    void entry.connection.stop();
  }

  /** Tokens arrived (a sign-in here or on another instance): connect again. */
  private signedIn(entry: Entry): void {
    if (entry.removed || entry.needsAuth === undefined) return;
    entry.needsAuth = undefined;
    entry.failure = undefined;
    // The 401 that asked for the sign-in is answered: it is no longer this server's last error.
    entry.lastError = undefined;
    entry.attempts = 0;
    if (entry.state === 'needs_auth') this.setState(entry, 'idle');
    this.connectInBackground(entry);
  }

  private onDropped(entry: Entry, reason: string): void {
    if (entry.removed || entry.needsAuth !== undefined) return;
    entry.dropReason = reason;
    this.setState(entry, 'failed', `server '${entry.config.name}' disconnected: ${reason}`);
    this.emit('tools', entry.config.name);
    if (this.live && this.running) this.scheduleReconnect(entry);
  }

  private scheduleReconnect(entry: Entry): void {
    if (entry.reconnect || entry.removed) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** entry.attempts);
    entry.attempts++;
    entry.reconnect = setTimeout(() => {
      entry.reconnect = undefined;
      entry.failure = undefined;
      this.connectInBackground(entry);
    }, delay);
    entry.reconnect.unref();
  }

  /** The configured server called `name`, if any. */
  server(name: string): ServerConfig | undefined {
    return this.entries.get(name)?.config;
  }

  serverNames(): string[] {
    return [...this.entries.keys()];
  }

  /** Tools of a connected server (empty until it has connected). */
  tools(name: string): readonly ToolInfo[] {
    return this.entries.get(name)?.connection.tools() ?? [];
  }

  /** Every server's state, in config order. */
  status(): ServerStatus[] {
    return [...this.entries.values()].map((e) => {
      const version = e.connection.protocolVersion;
      return {
        name: e.config.name,
        protocol: e.config.protocol,
        state: e.state,
        tools: e.connection.tools().length,
        ...(e.lastError ? { last_error: e.lastError } : {}),
        ...(version ? { protocol_version: version } : {}),
      };
    });
  }

  /** True while an enabled server has not yet connected or failed for the first time. */
  private unsettled(): boolean {
    return [...this.entries.values()].some((e) => e.state === 'idle' || e.state === 'connecting');
  }

  /**
   * Resolves once every enabled server is ready or failed, or after `timeoutMs`, whichever is
   * first (so a client's first tools/list can show the tools of servers that start quickly).
   */
  whenSettled(timeoutMs: number): Promise<void> {
    if (!this.unsettled() || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off('state', check);
        resolve();
      };
      const check = () => {
        if (!this.unsettled()) done();
      };
      const timer = setTimeout(done, timeoutMs);
      this.on('state', check);
    });
  }

  /** Connects `name` unless it is connected; a recent failure is answered from memory. */
  async ensureStarted(name: string): Promise<{ ok: true } | { ok: false; message: string }> {
    const entry = this.entries.get(name);
    if (!entry) return { ok: false, message: this.serverNotFound(name) };
    if (entry.connection.connected) return { ok: true };
    if (entry.needsAuth !== undefined) return { ok: false, message: needsSignInMessage(name) };
    if (entry.failure && Date.now() - entry.failure.at < UPSTREAM_RETRY_AFTER_MS) {
      return { ok: false, message: entry.failure.message };
    }
    if (entry.state !== 'connecting') this.setState(entry, 'connecting');
    try {
      await entry.connection.start();
      if (entry.removed)
        return { ok: false, message: `server '${name}' was removed from the config` };
      entry.failure = undefined;
      entry.dropReason = undefined;
      entry.attempts = 0;
      this.setState(entry, 'ready');
      this.emit('tools', name);
      return { ok: true };
    } catch (error) {
      if (error instanceof NeedsAuthError && !entry.removed) {
        this.needsSignIn(entry, error.reason);
        return { ok: false, message: needsSignInMessage(name) };
      }
      const message = `server '${name}' failed to start: ${(error as Error).message}`;
      if (entry.removed) return { ok: false, message };
      entry.failure = { at: Date.now(), message };
      this.setState(entry, 'failed', message);
      this.logger.warn({ server: name }, message);
      return { ok: false, message };
    }
  }

  /**
   * Outside live mode (standalone `code exec`), connects every usable server (those in
   * `reachable` when given) so the catalog lists what a gateway would list; failures
   * simply leave a server out, as on the gateway.
   */
  async startForCatalog(reachable?: ReadonlySet<string>): Promise<void> {
    if (this.live) return;
    const usable = [...this.entries.values()].filter(
      (e) =>
        e.config.enabled &&
        !e.config.quarantined &&
        (reachable === undefined || reachable.has(e.config.name)),
    );
    await Promise.all(usable.map((e) => this.ensureStarted(e.config.name)));
  }

  /**
   * Applies a new server list at once: removed servers stop, added ones start, changed ones
   * restart. The returned promise settles when the old connections have closed; nothing waits
   * for it before the new list is in place, so a hung upstream never delays the rest.
   */
  update(servers: readonly ServerConfig[]): Promise<void> {
    const next = new Map(servers.map((s) => [s.name, s]));
    const stopping: Promise<void>[] = [];
    for (const [name, entry] of this.entries) {
      const config = next.get(name);
      if (config && isDeepStrictEqual(config, entry.config)) continue;
      stopping.push(this.retire(entry));
      this.entries.delete(name);
    }
    for (const config of servers) {
      if (this.entries.has(config.name)) continue;
      const entry = this.add(config);
      this.logger.info({ server: config.name }, 'upstream added from the config');
      this.connectInBackground(entry);
    }
    // Keep config order.
    const ordered = servers.map((s) => this.entries.get(s.name)!);
    this.entries.clear();
    for (const entry of ordered) this.entries.set(entry.config.name, entry);
    this.emit('tools', '*');
    return Promise.all(stopping).then(() => {});
  }

  private retire(entry: Entry): Promise<void> {
    entry.removed = true;
    clearTimeout(entry.reconnect);
    entry.auth?.close();
    const stopped = entry.connection.stop().finally(() => this.retiring.delete(stopped));
    this.retiring.add(stopped);
    return stopped;
  }

  /** "server not found: X" (DESIGN.md's words) and the nearest configured names. */
  private serverNotFound(name: string): string {
    return `server not found: ${name}${didYouMean(name, this.entries.keys())}`;
  }

  /** Calls `server`.`tool`; never throws. */
  async call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallOutcome> {
    const entry = this.entries.get(server);
    if (!entry) return { ok: false, code: 'UPSTREAM_ERROR', message: this.serverNotFound(server) };
    if (!entry.config.enabled) {
      return {
        ok: false,
        code: 'SERVER_UNAVAILABLE',
        message: `server '${server}' is disabled in the config (set "enabled": true to use it)`,
      };
    }
    // A connected server, a free slot and no cluster limit are answered without a turn of the
    // microtask queue each (three per call, on the path of every call).
    const started = entry.connection.connected ? STARTED : await this.ensureStarted(server);
    if (!started.ok) return { ok: false, code: 'SERVER_UNAVAILABLE', message: started.message };
    // A change the server announced is read before the call is judged against its tools.
    if (entry.connection.relisting) await entry.connection.relisting;
    const tools = entry.connection.tools();
    const listed = tools.find((t) => t.name === tool);
    if (!listed) {
      const hint = didYouMean(
        tool,
        tools.map((t) => t.name),
      );
      return {
        ok: false,
        code: 'UPSTREAM_ERROR',
        message: `tool not found: ${server}.${tool}${hint}`,
      };
    }
    const refused = this.options.admit?.(server, listed);
    if (refused) return { ok: false, ...refused };
    return sendCall(entry, this.clusterSlots, tool, args, options);
  }

  /** Closes every connection (and so every stdio child); idempotent. */
  async stop(): Promise<void> {
    this.schedule.hurry();
    this.running = false;
    this.stopped = true;
    const closing = [...this.retiring];
    await Promise.all([...this.entries.values()].map((e) => this.retire(e)).concat(closing));
  }
}
