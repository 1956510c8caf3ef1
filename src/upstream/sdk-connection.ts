/**
 * @module An upstream connection through the official MCP SDK client (2.x): stdio,
 * Streamable HTTP or SSE, to a server of either generation (2026-07-28 or 2025-11-25 and
 * older), probed on the first connect and remembered until a connect fails or the
 * connection drops.
 */
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  MIN_UPSTREAM_MESSAGE_BYTES,
  UPSTREAM_FAILURES_BEFORE_RECONNECT,
  UPSTREAM_MESSAGE_HEADROOM_BYTES,
  UPSTREAM_STDIO_PROBE_TIMEOUT_MS,
} from '../config/defaults.ts';
import type { ServerConfig } from '../config/index.ts';
import { tracing } from '../telemetry/index.ts';
import type { Logger } from '../util/logger.ts';
import { UPSTREAM_ERROR_EXCERPT_BYTES } from './call-failure.ts';
import { GuardedTransport } from './guarded-transport.ts';
import { answerInputRequests, INPUT_CAPABILITIES } from './input-handler.ts';
import { CallDeadline, type CallInFlight, InFlightCalls, outsideCalls } from './input-owner.ts';
import { type HeaderDeclaration, paramHeaders, scanHeaders } from './mcp-param-headers.ts';
import { NeedsAuthError } from './oauth/needs-auth.ts';
import type { FetchLike, UpstreamAuth } from './oauth/types.ts';
import { boundedOutputValidators, checkStructuredContent } from './output-validators.ts';
import type { StopSchedule } from './process-reaper.ts';
import { type SdkModules, sdkModules } from './sdk-modules.ts';
import { closeBoth, listAllTools, rawResultSchema } from './sdk-requests.ts';
import { SecretMask } from './secret-mask.ts';
import { StderrTail } from './stderr-tail.ts';
import { StdioTransport } from './stdio-transport.ts';
import { classifyTransportError } from './transport-failure.ts';
import type { AskInput, CallOptions, ToolInfo, UpstreamConnection, UpstreamLog } from './types.ts';

const CLIENT_INFO = { name: 'codemux', version: '0.1.0' };
/** A server's generation as the SDK can take it back (`connect({prior})`): the probe is skipped. */
type Prior = NonNullable<Parameters<Client['connect']>[1]>['prior'];
/** The SDK's SdkErrorCode.EraNegotiationFailed (its errors are matched by code, not class). */
const ERA_NEGOTIATION_FAILED = 'ERA_NEGOTIATION_FAILED';
/** The level asked of a 2026-07-28 server on each call: all of them, as a 2025 server sends unasked. */
const FORWARDED_LOG_LEVEL = 'debug';
/**
 * The SDK's own request timeout for a call: the call's deadline is kept here instead
 * (CallDeadline), stopped while the server waits on a person's input; setTimeout's largest delay.
 */
const SDK_CALL_TIMEOUT_MS = 2_147_483_647;
/** A call with no deadline of its own (none configured, none from the execution). */
const UNBOUNDED_CALL_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_MESSAGE_BYTES = () =>
  MIN_UPSTREAM_MESSAGE_BYTES + UPSTREAM_MESSAGE_HEADROOM_BYTES;

export class SdkConnection implements UpstreamConnection {
  onClose?: (reason: string) => void;
  onToolsChanged?: () => void;
  onLog?: (message: UpstreamLog) => void;
  onStderr?: (line: string) => void;
  onInput?: AskInput;
  /** The calls in flight: a request for input is answered for the one that asked. */
  private readonly calls = new InFlightCalls();
  private client: Client | undefined;
  /**
   * The client of a connect in flight and its transport, so stop() can end it (and its child)
   * at once: while the SDK probes the server's version it holds the transport itself, and
   * closing the client alone does not close it.
   */
  private pending: { client: Client; transport: Transport } | undefined;
  /** HTTP/SSE transport failures in a row (5xx); reset by a call that gets through. */
  private failuresInARow = 0;
  private readonly seenErrors = new WeakSet<object>();
  private starting: Promise<void> | undefined;
  private toolList: ToolInfo[] = [];
  /** While a changed tool list is being read (UpstreamConnection.relisting). */
  relisting: Promise<void> | undefined;
  private readonly stderr = new StderrTail();
  private resultSchema: ReturnType<typeof rawResultSchema> | undefined;
  /** Each listed tool's output schema, by name (checked on every call's structuredContent). */
  private outputSchemas = new Map<string, Record<string, unknown>>();
  /** Each listed tool's `x-mcp-header` declarations, by name (a 2026-07-28 HTTP server's only). */
  private headerDeclarations = new Map<string, HeaderDeclaration[]>();
  /** The server's generation from the last connect, used by the next; forgotten after a failure. */
  private prior: Prior;
  /** The protocol version the last connect negotiated (kept after a drop until the next connect). */
  private negotiated: string | undefined;
  /** What each call carries: a 2026-07-28 server is asked for its logs per request (it has no logging/setLevel). */
  private callMeta: { _meta: Record<string, string> } | undefined;

  constructor(
    private readonly server: ServerConfig,
    /** Bound to the server's name (the registry passes logger.child({server})). */
    private readonly logger: Logger,
    /** The largest message the server may send (the gateway passes maxUpstreamMessageBytes of its config). */
    private readonly maxMessageBytes: () => number = DEFAULT_MAX_MESSAGE_BYTES,
    /** How a stdio child is ended (the registry's schedule, hurried when the gateway stops). */
    private readonly schedule?: StopSchedule,
    /** An http/sse server's OAuth side: its fetch carries the token (upstream/oauth). */
    private readonly auth?: UpstreamAuth,
    /** Its credentials: masked out of what the server's errors say before they are cut and passed on. */
    private readonly secrets: SecretMask = new SecretMask().configure(server),
  ) {}

  get name(): string {
    return this.server.name;
  }

  get connected(): boolean {
    return this.client !== undefined && this.starting === undefined;
  }

  tools(): readonly ToolInfo[] {
    return this.toolList;
  }

  get protocolVersion(): string | undefined {
    return this.negotiated;
  }

  /**
   * Takes a listing in. From a 2026-07-28 server over HTTP (SEP-2243), a tool whose
   * `x-mcp-header` declarations break a rule is left out (its calls could not carry their
   * headers), and the others' declarations are kept for their calls' `Mcp-Param-*` headers.
   */
  private setTools(client: Client, listed: ToolInfo[]): void {
    const mirrors = this.server.protocol === 'http' && client.getProtocolEra() === 'modern';
    const declarations = new Map<string, HeaderDeclaration[]>();
    const tools = !mirrors
      ? listed
      : listed.filter((t) => {
          const scan = scanHeaders(t.inputSchema);
          if (!scan.ok) {
            this.logger.warn(
              { tool: t.name, reason: scan.reason },
              'left out a tool with an invalid x-mcp-header',
            );
            return false;
          }
          if (scan.declarations.length) declarations.set(t.name, scan.declarations);
          return true;
        });
    this.toolList = tools;
    this.headerDeclarations = declarations;
    this.outputSchemas = new Map(
      tools.flatMap((t) => (t.outputSchema ? [[t.name, t.outputSchema] as const] : [])),
    );
  }

  private transport(sdk: SdkModules): Transport {
    const { StreamableHTTPClientTransport, SSEClientTransport } = sdk;
    const s = this.server;
    const requestInit = { headers: s.headers };
    const fetch = tracing().enabled ? tracedFetch(this.auth?.fetch) : this.auth?.fetch;
    if (s.protocol === 'http')
      return new StreamableHTTPClientTransport(new URL(s.url!), { requestInit, fetch });
    if (s.protocol === 'sse')
      return new SSEClientTransport(new URL(s.url!), { requestInit, fetch });
    return new StdioTransport(
      {
        command: s.command!,
        args: s.args,
        env: { ...sdk.getDefaultEnvironment(), ...s.env },
        cwd: s.cwd,
      },
      sdk,
      (stream) => this.stderr.attach(stream, (line) => this.onStderr?.(line)),
      this.maxMessageBytes,
      this.schedule,
    );
  }

  /** Ends an established connection that can no longer work, and reports why (the registry reconnects). */
  private drop(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.failuresInARow = 0;
    // The server may come back another generation (an upgrade is a restart): probe again.
    this.prior = undefined;
    this.logger.warn({ reason }, 'upstream connection lost');
    void client.close().catch(() => {});
    this.onClose?.(reason);
  }

  /** An HTTP/SSE transport error, from a call or from the transport's background streams. */
  private noticeTransportError(client: Client, error: unknown): void {
    const protocol = this.server.protocol;
    if (protocol === 'stdio' || this.client !== client) return;
    // A failed send reaches us twice: through onerror and as the call's rejection.
    if (typeof error === 'object' && error !== null) {
      if (this.seenErrors.has(error)) return;
      this.seenErrors.add(error);
    }
    const verdict = classifyTransportError(error, protocol);
    // An HTTP error page may echo the request (its headers, its bearer token) back.
    const message = this.secrets.excerpt(
      String((error as Error)?.message ?? error),
      UPSTREAM_ERROR_EXCERPT_BYTES,
    );
    if (verdict === 'lost') this.drop(client, `the connection was lost: ${message}`);
    else if (verdict === 'flaky' && ++this.failuresInARow >= UPSTREAM_FAILURES_BEFORE_RECONNECT)
      this.drop(client, `${this.failuresInARow} transport failures in a row, the last: ${message}`);
  }

  /** A client for one connect attempt, its transport and its handlers (nothing is sent yet). */
  private open(sdk: SdkModules): { client: Client; transport: Transport } {
    const timeoutMs = this.server.connectTimeoutMs;
    const client = new sdk.Client(CLIENT_INFO, {
      capabilities: INPUT_CAPABILITIES,
      jsonSchemaValidator: boundedOutputValidators,
      versionNegotiation: {
        mode: 'auto',
        // On stdio a silent probe means a 2025 server; on HTTP the connect timeout applies.
        ...(this.server.protocol === 'stdio'
          ? {
              probe: {
                timeoutMs: Math.min(UPSTREAM_STDIO_PROBE_TIMEOUT_MS, Math.ceil(timeoutMs / 2)),
              },
            }
          : {}),
      },
    });
    const inner = this.transport(sdk);
    const transport = new GuardedTransport(
      inner,
      (reason) => this.logger.warn(`dropped an upstream message: ${reason}`),
      this.maxMessageBytes,
    );
    client.onclose = () => {
      const reason =
        (inner instanceof StdioTransport ? inner.closeReason : undefined) ??
        'the connection closed';
      this.drop(client, reason);
    };
    client.onerror = (error) => this.noticeTransportError(client, error);
    client.setNotificationHandler('notifications/tools/list_changed', async () => {
      if (this.client !== client) return;
      let listed!: () => void;
      const relisting = new Promise<void>((resolve) => {
        listed = resolve;
      });
      this.relisting = relisting;
      try {
        this.setTools(client, await listAllTools(client, this.server.connectTimeoutMs));
        this.logger.info({ tools: this.toolList.length }, 'upstream tools changed');
        this.onToolsChanged?.();
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'listing changed tools failed');
      } finally {
        if (this.relisting === relisting) this.relisting = undefined;
        listed();
      }
    });
    client.setNotificationHandler('notifications/message', async (notification) => {
      if (this.client === client) this.onLog?.(notification.params as UpstreamLog);
    });
    answerInputRequests(
      client,
      this.calls,
      () => this.onInput,
      (text) => this.secrets.mask(text),
    );
    return { client, transport };
  }

  /**
   * Connects `client` (probing the server's generation unless `prior` knows it), opens the
   * tools/list_changed subscription a 2026-07-28 server needs, and lists the tools.
   */
  private async handshake(client: Client, transport: Transport, prior: Prior): Promise<ToolInfo[]> {
    const timeoutMs = this.server.connectTimeoutMs;
    await client.connect(transport, { timeout: timeoutMs, ...(prior ? { prior } : {}) });
    if (
      client.getProtocolEra() === 'modern' &&
      client.getServerCapabilities()?.tools?.listChanged
    ) {
      await this.subscribe(client, timeoutMs);
    }
    return listAllTools(client, this.server.connectTimeoutMs);
  }

  /** A 2026-07-28 server announces tool changes only on a `subscriptions/listen` stream. */
  private async subscribe(client: Client, timeoutMs: number): Promise<void> {
    try {
      const subscription = await client.listen({ toolsListChanged: true }, { timeout: timeoutMs });
      void subscription.closed.then((how) => {
        // Changes announced while it is down would be missed: connect again (and list again).
        if (how !== 'local')
          this.drop(client, `the server ended its tools/list_changed stream (${how})`);
      });
    } catch (error) {
      this.logger.warn(
        { err: (error as Error).message },
        'the server did not open a tools/list_changed stream; its tool changes are seen at the next connect',
      );
    }
  }

  /**
   * A stdio server that ends the conversation on the version probe (some SDKs exit on any
   * request before `initialize`) is a 2025 server: the SDK's own throwaway-process probe takes
   * only its base transport, so codemux connects again, without the probe.
   */
  private endedOnProbe(error: unknown, prior: Prior): boolean {
    return (
      prior === undefined &&
      this.server.protocol === 'stdio' &&
      (error as { code?: unknown } | null)?.code === ERA_NEGOTIATION_FAILED &&
      /closed during the server\/discover probe/.test((error as Error).message)
    );
  }

  private async connect(): Promise<void> {
    // A server that needs a sign-in first is not even asked (no request, no retry loop).
    const blocked = await this.auth?.blocked();
    if (blocked !== undefined) throw new NeedsAuthError(this.name, blocked);
    const sdk = await sdkModules();
    this.resultSchema ??= rawResultSchema(sdk.CallToolResultSchema);
    const started = Date.now();
    const timeoutMs = this.server.connectTimeoutMs;
    // SSE is a 2025-generation transport: nothing to probe.
    const prior: Prior = this.server.protocol === 'sse' ? { kind: 'legacy' } : this.prior;
    let current: { client: Client; transport: Transport } | undefined;
    const attempt = async (generation: Prior) => {
      const opened = this.open(sdk);
      current = opened;
      this.pending = opened;
      return {
        client: opened.client,
        tools: await this.handshake(opened.client, opened.transport, generation),
      };
    };
    let timer: NodeJS.Timeout | undefined;
    // One deadline for the whole handshake: spawn, probe, initialize and every page of tools/list.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `no handshake within ${timeoutMs} ms (connect_timeout_ms; raise it for a slow server)`,
            ),
          ),
        timeoutMs,
      );
    });
    const connected = attempt(prior).catch(async (error: unknown) => {
      if (!this.endedOnProbe(error, prior) || this.pending !== current) throw error;
      await closeBoth(current);
      this.logger.info(
        'the server ended the connection on the version probe: connecting without it',
      );
      return attempt({ kind: 'legacy' });
    });
    try {
      const { client, tools } = await Promise.race([connected, deadline]);
      if (this.pending?.client !== client)
        throw new Error('the connection was stopped while starting');
      this.setTools(client, tools);
      this.failuresInARow = 0;
      const modern = client.getProtocolEra() === 'modern';
      this.callMeta = modern
        ? { _meta: { [sdk.LOG_LEVEL_META_KEY]: FORWARDED_LOG_LEVEL } }
        : undefined;
      this.negotiated = client.getNegotiatedProtocolVersion();
      const discover = client.getDiscoverResult();
      this.prior = modern && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
      this.client = client;
      this.logger.debug(
        {
          tools: tools.length,
          ms: Date.now() - started,
          protocol_version: this.negotiated,
          probed: prior === undefined,
        },
        'upstream connected',
      );
    } catch (error) {
      // The next connect probes the server again (it may have changed generation).
      this.prior = undefined;
      this.negotiated = undefined;
      connected.catch(() => {});
      await closeBoth(current);
      const needs = this.auth?.needsSignIn;
      if (needs !== undefined) throw new NeedsAuthError(this.name, needs);
      // Let the child flush what it wrote before it died.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const tail = this.stderr.value;
      const reason = this.secrets.excerpt(
        String((error as Error)?.message ?? error),
        UPSTREAM_ERROR_EXCERPT_BYTES,
      );
      throw new Error(tail ? `${reason}; its stderr ends with: ${tail}` : reason);
    } finally {
      clearTimeout(timer);
      if (this.pending === current) this.pending = undefined;
    }
  }

  start(): Promise<void> {
    if (this.client) return Promise.resolve();
    // Started by some call, but no call's: what its streams bring is nobody's in particular.
    this.starting ??= outsideCalls(() => this.connect()).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Ends the connection, and a connect in flight too (its child is ended, not waited for). */
  async stop(): Promise<void> {
    const client = this.client;
    const pending = this.pending;
    this.client = undefined;
    this.pending = undefined;
    await Promise.all([
      client?.close().catch(() => {}),
      closeBoth(pending),
      this.starting?.catch(() => {}),
    ]);
  }

  /** One tools/call request; the SDK's own tools/call parse would drop a `__proto__` key (see rawResultSchema). */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const client = this.client;
    if (!client) throw new Error(`server '${this.name}' is not connected`);
    const timeoutMs = options.timeoutMs ?? UNBOUNDED_CALL_TIMEOUT_MS;
    const controller = new AbortController();
    const abort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    let timedOut = false;
    const deadline = new CallDeadline(timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    const ended = new AbortController();
    const declared = this.headerDeclarations.get(tool);
    const headers = declared ? paramHeaders(declared, args) : {};
    const call: CallInFlight = { options, deadline, ended: ended.signal };
    // The call's span, when traced: its context rides in `_meta` (and, over HTTP, the
    // traceparent header tracedFetch writes while the span is active).
    const span = options.span?.recording ? options.span : undefined;
    const meta = span ? { _meta: { ...this.callMeta?._meta, ...span.meta() } } : this.callMeta;
    // The SDK's own tools/call parse would drop a `__proto__` key (see rawResultSchema).
    const send = () =>
      client.request(
        { method: 'tools/call', params: { name: tool, arguments: args, ...meta } },
        this.resultSchema!,
        {
          signal: controller.signal,
          timeout: SDK_CALL_TIMEOUT_MS,
          ...(Object.keys(headers).length ? { headers } : {}),
        },
      );
    try {
      const result = (await this.calls.run(call, () =>
        span ? tracing().within(span, send) : send(),
      )) as CallToolResult;
      checkStructuredContent(tool, this.outputSchemas.get(tool), result);
      if (this.client === client) this.failuresInARow = 0;
      return result;
    } catch (caught) {
      // Read as the SDK's own request timeout (call-failure.ts), which this deadline replaces.
      const error = timedOut
        ? Object.assign(new Error(`Request timed out after ${timeoutMs} ms`), {
            code: 'REQUEST_TIMEOUT',
          })
        : caught;
      // The transport already reported it through onerror; this catches what it did not.
      if (!options.signal?.aborted) this.noticeTransportError(client, error);
      throw error;
    } finally {
      deadline.clear();
      ended.abort();
      options.signal?.removeEventListener('abort', abort);
    }
  }
}

/**
 * An HTTP upstream's fetch that carries the active span's W3C context in a `traceparent`
 * header (its tools/call requests run with their CLIENT span active). Installed only when
 * tracing is on (the gateway turns it on before it connects anything).
 */
function tracedFetch(base: FetchLike | undefined): FetchLike {
  const send: FetchLike = base ?? ((url, init) => globalThis.fetch(url, init));
  return (url, init) => {
    const headers = new Headers(init?.headers);
    tracing().inject(headers);
    return send(url, { ...init, headers });
  };
}
