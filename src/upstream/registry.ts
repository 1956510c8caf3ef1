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
import { NeedsAuthError, waitingMessage } from './oauth/needs-auth.ts';
import { StopSchedule } from './process-reaper.ts';
import {
  type ConnectionFactory,
  disabledToolMessage,
  disabledToolsText,
  type Entry,
  type RegistryOptions,
  sameButDisabledTools,
  sdkFactory,
  statusOf,
  untilSettled,
} from './registry-entry.ts';
import { maskValue } from './result-mask.ts';
import { sendCall } from './send-call.ts';
import { type JournalEvent, ServerJournal } from './server-journal.ts';
import { COMMAND_NOT_FOUND } from './stdio-transport.ts';
import type {
  CallOptions,
  CallOutcome,
  InputAsk,
  InputReply,
  ServerState,
  ServerStatus,
  ToolInfo,
} from './types.ts';

/** What ensureStarted answers for a connected server. */
const STARTED = { ok: true } as const;

/** Reconnect backoff in live mode: 250 ms, doubling, at most 30 s. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 30_000;

/**
 * Emits 'tools' when any server's tool list changed, 'state' when a server's state did, and
 * 'log' (server name, UpstreamLog) for each log notification an upstream sends.
 */
export class UpstreamRegistry extends EventEmitter {
  private readonly entries = new Map<string, Entry>();
  /** Each configured server's history and stderr, kept while it stays in the config. */
  private readonly journals = new Map<string, ServerJournal>();
  private readonly live: boolean;
  private readonly factory: ConnectionFactory;
  private running = false;
  /** Once stopped, start() does nothing (a signal may arrive while the gateway starts). */
  private stopped = false;
  /** Connections of removed servers that are still closing; stop() waits for them too. */
  private readonly retiring = new Set<Promise<void>>();
  /** How stdio children are ended: politely on a reload, hurried once the registry stops. */
  private readonly schedule = new StopSchedule();
  private toolsVersion = 0;
  /**
   * Answers a server's request for input that no call of it can be told to own (several in
   * flight on stdio): set by the gateway (its input desk); unset, such requests are declined.
   */
  onInput?: (server: string, ask: InputAsk, signal: AbortSignal) => Promise<InputReply>;

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
    for (const config of servers) this.add(config);
    this.on('tools', () => this.toolsVersion++);
  }

  /** Changes whenever any server's tool list (or the server set) changes. */
  get version(): number {
    return this.toolsVersion;
  }

  /** Makes `config`'s entry; `why` (added, config_changed...) goes first into its history. */
  private add(config: ServerConfig, why?: string, origin?: string): Entry {
    const auth = this.options.auth?.(config);
    const journal = this.journals.get(config.name)?.configure(config) ?? new ServerJournal(config);
    this.journals.set(config.name, journal);
    if (why) journal.record(why, origin);
    const entry: Entry = {
      config,
      auth,
      connection: this.factory(
        config,
        this.logger.child({ server: config.name }),
        this.options.maxMessageBytes,
        this.schedule,
        auth,
        journal.secrets,
      ),
      limiter: new ConcurrencyLimiter(config.maxConcurrentRequests, config.queueSize),
      state: !config.enabled ? 'disabled' : config.quarantined ? 'quarantined' : 'idle',
      attempts: 0,
      removed: false,
      disabled: new Set(config.disabledTools),
      journal,
    };
    entry.connection.onClose = (reason) => this.onDropped(entry, reason);
    entry.connection.onToolsChanged = () => this.emit('tools', config.name);
    // A log notification is the server's own text: masked as its stderr is, at any depth.
    entry.connection.onLog = (message) =>
      this.emit('log', config.name, {
        ...message,
        data: maskValue(message.data, (text) => journal.secrets.mask(text)),
      });
    entry.connection.onInput = (ask, signal) =>
      this.onInput
        ? this.onInput(config.name, ask, signal)
        : Promise.resolve({ action: 'decline' });
    entry.connection.onStderr = (line) =>
      this.logger.debug(`${config.name} stderr: ${journal.stderr(line)}`);
    if (auth) {
      // Every token sent is masked out of the server's error text and results (an echoed header).
      auth.onBearer = (token, refreshToken) => {
        journal.secrets.credentialSent(token);
        if (refreshToken) journal.secrets.credentialSent(refreshToken);
      };
      auth.onNeedsSignIn = (reason) => this.needsSignIn(entry, reason);
      auth.onSignedIn = () => this.signedIn(entry);
    }
    if (entry.state !== 'idle') journal.record(entry.state, 'in the config');
    this.entries.set(config.name, entry);
    return entry;
  }

  private setState(entry: Entry, state: ServerState, error?: string): void {
    if (entry.state !== state || error !== undefined) entry.journal.record(state, error);
    entry.state = state;
    if (error !== undefined) entry.lastError = entry.journal.mask(error);
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

  /**
   * The server waits for an OAuth sign-in: its connection ends and nothing retries it. One that
   * refuses even what a step-up sign-in granted shows `failed` (a sign-in will not fix it).
   */
  private needsSignIn(entry: Entry, reason: string): void {
    if (entry.removed) return;
    entry.needsAuth = reason;
    clearTimeout(entry.reconnect);
    entry.reconnect = undefined;
    const state = entry.auth?.signInRefused ? 'failed' : 'needs_auth';
    if (entry.state !== state) {
      this.setState(entry, state, reason);
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
    if (entry.state === 'needs_auth' || entry.state === 'failed') this.setState(entry, 'idle');
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

  /** Tools of a connected server (empty until it has connected), but for its `disabled_tools`. */
  tools(name: string): readonly ToolInfo[] {
    const entry = this.entries.get(name);
    if (!entry) return [];
    const tools = entry.connection.tools();
    return entry.disabled.size === 0 ? tools : tools.filter((t) => !entry.disabled.has(t.name));
  }

  /** Every tool a connected server lists, its disabled ones too (pinning, the dashboard). */
  listedTools(name: string): readonly ToolInfo[] {
    return this.entries.get(name)?.connection.tools() ?? [];
  }

  /** A server's state history and its last stderr lines (values of its env masked). */
  journal(name: string): { history: JournalEvent[]; stderr: string[] } | undefined {
    const journal = this.journals.get(name);
    return journal && { history: journal.history(), stderr: journal.stderrLines() };
  }

  /** Every server's state, in config order. */
  status(): ServerStatus[] {
    return [...this.entries.values()].map((e) => statusOf(e, this.tools(e.config.name).length));
  }

  /**
   * Resolves once every enabled server is ready or failed, or after `timeoutMs`, whichever is
   * first (so a client's first tools/list can show the tools of servers that start quickly).
   */
  whenSettled(timeoutMs: number): Promise<void> {
    const unsettled = () =>
      [...this.entries.values()].some((e) => e.state === 'idle' || e.state === 'connecting');
    return untilSettled(this, unsettled, timeoutMs);
  }

  /** Connects `name` unless it is connected; a recent failure is answered from memory. */
  async ensureStarted(name: string): Promise<{ ok: true } | { ok: false; message: string }> {
    const entry = this.entries.get(name);
    if (!entry) return { ok: false, message: this.serverNotFound(name) };
    if (entry.connection.connected) return { ok: true };
    if (entry.needsAuth !== undefined) return { ok: false, message: waitingMessage(entry) };
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
        return { ok: false, message: waitingMessage(entry) };
      }
      const said = (error as Error).message;
      const message = entry.journal.mask(
        said.startsWith(COMMAND_NOT_FOUND)
          ? `${said} (server ${name})`
          : `server '${name}' failed to start: ${said}`,
      );
      if (entry.removed) return { ok: false, message };
      // The same failure again (a retry, with backoff) is logged once, then at debug level.
      const repeated = entry.attempts > 0 && entry.lastError === message;
      entry.failure = { at: Date.now(), message };
      this.setState(entry, 'failed', message);
      if (repeated) this.logger.debug({ server: name }, `${message} (again)`);
      else this.logger.warn({ server: name }, message);
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
  update(servers: readonly ServerConfig[], origin?: string): Promise<void> {
    const next = new Map(servers.map((s) => [s.name, s]));
    const stopping: Promise<void>[] = [];
    const changed = new Set<string>();
    for (const [name, entry] of this.entries) {
      const config = next.get(name);
      if (config && isDeepStrictEqual(config, entry.config)) continue;
      // Only its disabled tools changed: the connection stays, the lists follow.
      if (config && sameButDisabledTools(config, entry.config)) {
        entry.config = config;
        entry.disabled = new Set(config.disabledTools);
        entry.journal.record('tools_changed', withOrigin(disabledToolsText(config), origin));
        continue;
      }
      stopping.push(this.retire(entry));
      this.entries.delete(name);
      if (config) changed.add(name);
      else this.journals.delete(name);
    }
    for (const config of servers) {
      if (this.entries.has(config.name)) continue;
      const why = changed.has(config.name) ? 'config_changed' : 'added';
      const entry = this.add(config, why, origin);
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

  /**
   * Stops `name`'s connection and connects it again (a stdio server is a new process), as
   * after a config change; false when it is not in the config, disabled or quarantined.
   */
  restart(name: string): boolean {
    const entry = this.entries.get(name);
    if (!entry?.config.enabled || entry.config.quarantined) return false;
    void this.retire(entry);
    const fresh = this.add(entry.config, 'restarted');
    this.logger.info({ server: name }, 'upstream restarted on request');
    this.emit('tools', name);
    this.connectInBackground(fresh);
    return true;
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
    if (!entry)
      return { ok: false, code: 'SERVER_NOT_FOUND', message: this.serverNotFound(server) };
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
    if (listed && entry.disabled.has(tool)) {
      return { ok: false, code: 'TOOL_NOT_FOUND', message: disabledToolMessage(server, tool) };
    }
    if (!listed) {
      const hint = didYouMean(
        tool,
        this.tools(server).map((t) => t.name),
      );
      return {
        ok: false,
        code: 'TOOL_NOT_FOUND',
        message: `tool not found: ${server}.${tool}${hint}`,
      };
    }
    const refused = this.options.admit?.(server, listed);
    if (refused) return { ok: false, ...refused };
    return sendCall(entry, this.options.clusterSlots, tool, args, options);
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

const withOrigin = (text: string, origin?: string) => (origin ? `${text} (${origin})` : text);
