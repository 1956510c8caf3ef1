/** @module An upstream connection through the official MCP SDK client: stdio, Streamable HTTP or SSE. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  MIN_UPSTREAM_MESSAGE_BYTES,
  UPSTREAM_FAILURES_BEFORE_RECONNECT,
  UPSTREAM_MESSAGE_HEADROOM_BYTES,
} from '../config/defaults.ts';
import type { ServerConfig } from '../config/index.ts';
import type { Logger } from '../util/logger.ts';
import { GuardedTransport } from './guarded-transport.ts';
import { NeedsAuthError } from './oauth/needs-auth.ts';
import type { UpstreamAuth } from './oauth/types.ts';
import { boundedOutputValidators } from './output-validators.ts';
import type { StopSchedule } from './process-reaper.ts';
import { type SdkModules, sdkModules } from './sdk-modules.ts';
import { StderrTail } from './stderr-tail.ts';
import { StdioTransport } from './stdio-transport.ts';
import { classifyTransportError } from './transport-failure.ts';
import type { CallOptions, ToolInfo, UpstreamConnection, UpstreamLog } from './types.ts';

const CLIENT_INFO = { name: 'codemux', version: '0.1.0' };
/** The SDK's own request timeout when a call has no deadline of its own. */
const UNBOUNDED_CALL_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_MESSAGE_BYTES = () =>
  MIN_UPSTREAM_MESSAGE_BYTES + UPSTREAM_MESSAGE_HEADROOM_BYTES;

export class SdkConnection implements UpstreamConnection {
  onClose?: (reason: string) => void;
  onToolsChanged?: () => void;
  onLog?: (message: UpstreamLog) => void;
  private client: Client | undefined;
  /** The client of a connect in flight, so stop() can end it (and its child) at once. */
  private pending: Client | undefined;
  /** HTTP/SSE transport failures in a row (5xx); reset by a call that gets through. */
  private failuresInARow = 0;
  private readonly seenErrors = new WeakSet<object>();
  private starting: Promise<void> | undefined;
  private toolList: ToolInfo[] = [];
  /** While a changed tool list is being read (UpstreamConnection.relisting). */
  relisting: Promise<void> | undefined;
  private readonly stderr = new StderrTail();
  private resultSchema: unknown;

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

  private transport(sdk: SdkModules): Transport {
    const { StreamableHTTPClientTransport, SSEClientTransport } = sdk;
    const s = this.server;
    const requestInit = { headers: s.headers };
    const fetch = this.auth?.fetch;
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
      (stream) => this.stderr.attach(stream, (line) => this.logger.debug(`stderr: ${line}`)),
      this.maxMessageBytes,
      this.schedule,
    );
  }

  /** Ends an established connection that can no longer work, and reports why (the registry reconnects). */
  private drop(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.failuresInARow = 0;
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
    const message = (error as Error)?.message ?? String(error);
    if (verdict === 'lost') this.drop(client, `the connection was lost: ${message}`);
    else if (verdict === 'flaky' && ++this.failuresInARow >= UPSTREAM_FAILURES_BEFORE_RECONNECT)
      this.drop(client, `${this.failuresInARow} transport failures in a row, the last: ${message}`);
  }

  private async connect(): Promise<void> {
    // A server that needs a sign-in first is not even asked (no request, no retry loop).
    const blocked = await this.auth?.blocked();
    if (blocked !== undefined) throw new NeedsAuthError(this.name, blocked);
    const sdk = await sdkModules();
    const client = new sdk.Client(CLIENT_INFO, {
      capabilities: {},
      jsonSchemaValidator: boundedOutputValidators,
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
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      let listed!: () => void;
      const relisting = new Promise<void>((resolve) => {
        listed = resolve;
      });
      this.relisting = relisting;
      try {
        this.toolList = await this.listTools(client);
        this.logger.info({ tools: this.toolList.length }, 'upstream tools changed');
        this.onToolsChanged?.();
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'listing changed tools failed');
      } finally {
        if (this.relisting === relisting) this.relisting = undefined;
        listed();
      }
    });
    this.resultSchema ??= rawResultSchema(sdk.CallToolResultSchema);
    client.setNotificationHandler(sdk.LoggingMessageNotificationSchema, async (notification) => {
      if (this.client === client) this.onLog?.(notification.params);
    });
    const started = Date.now();
    this.pending = client;
    const timeoutMs = this.server.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    // One deadline for the whole handshake: spawn, initialize and every page of tools/list.
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
    try {
      const tools = await Promise.race([
        client.connect(transport, { timeout: timeoutMs }).then(() => this.listTools(client)),
        deadline,
      ]);
      if (this.pending !== client) throw new Error('the connection was stopped while starting');
      this.toolList = tools;
      this.failuresInARow = 0;
      this.client = client;
      this.logger.debug({ tools: tools.length, ms: Date.now() - started }, 'upstream connected');
    } catch (error) {
      await client.close().catch(() => {});
      const needs = this.auth?.needsSignIn;
      if (needs !== undefined) throw new NeedsAuthError(this.name, needs);
      // Let the child flush what it wrote before it died.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const tail = this.stderr.value;
      const reason = (error as Error).message;
      throw new Error(tail ? `${reason}; its stderr ends with: ${tail}` : reason);
    } finally {
      clearTimeout(timer);
      if (this.pending === client) this.pending = undefined;
    }
  }

  /** Every page of tools/list. */
  private async listTools(client: Client): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, {
        timeout: this.server.connectTimeoutMs,
      });
      for (const t of page.tools) {
        tools.push({
          name: t.name,
          ...(t.title === undefined ? {} : { title: t.title }),
          description: t.description,
          // Already bounded one tool at a time by the transport guard (guarded-transport.ts).
          inputSchema: t.inputSchema as Record<string, unknown>,
          outputSchema: t.outputSchema as Record<string, unknown> | undefined,
          ...(t.annotations === undefined
            ? {}
            : { annotations: t.annotations as Record<string, unknown> }),
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  start(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.starting ??= this.connect().finally(() => {
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
      pending?.close().catch(() => {}),
      this.starting?.catch(() => {}),
    ]);
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const client = this.client;
    if (!client) throw new Error(`server '${this.name}' is not connected`);
    try {
      const result = (await client.callTool(
        { name: tool, arguments: args },
        this.resultSchema as never,
        {
          signal: options.signal,
          timeout: options.timeoutMs ?? UNBOUNDED_CALL_TIMEOUT_MS,
        },
      )) as CallToolResult;
      if (this.client === client) this.failuresInARow = 0;
      return result;
    } catch (error) {
      // The transport already reported it through onerror; this catches what it did not.
      if (!options.signal?.aborted) this.noticeTransportError(client, error);
      throw error;
    }
  }
}

/**
 * Checks a result's shape with the SDK's schema but returns the upstream's own object:
 * zod drops (or turns into a prototype) a `__proto__` key, which must reach the guest as
 * the plain data key JSON.parse made of it.
 */
function rawResultSchema(schema: SdkModules['CallToolResultSchema']) {
  return {
    safeParse(data: unknown) {
      const parsed = schema.safeParse(data);
      if (!parsed.success) return parsed;
      const raw = data as CallToolResult;
      return { success: true, data: Array.isArray(raw.content) ? raw : { ...raw, content: [] } };
    },
  };
}
