/** @module An upstream connection through the official MCP SDK client: stdio, Streamable HTTP or SSE. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../config/index.ts';
import type { Logger } from '../util/logger.ts';
import { type SdkModules, sdkModules } from './sdk-modules.ts';
import { StderrTail } from './stderr-tail.ts';
import type { CallOptions, ToolInfo, UpstreamConnection } from './types.ts';

const CLIENT_INFO = { name: 'codemux', version: '0.1.0' };
/** The SDK's own request timeout when a call has no deadline of its own. */
const UNBOUNDED_CALL_TIMEOUT_MS = 600_000;

export class SdkConnection implements UpstreamConnection {
  onClose?: () => void;
  onToolsChanged?: () => void;
  private client: Client | undefined;
  private starting: Promise<void> | undefined;
  /** The client of a handshake in flight, so stop() can end it instead of waiting for it. */
  private handshaking: Client | undefined;
  private toolList: ToolInfo[] = [];
  private readonly stderr = new StderrTail();

  constructor(
    private readonly server: ServerConfig,
    private readonly logger: Logger,
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
    const {
      StreamableHTTPClientTransport,
      SSEClientTransport,
      StdioClientTransport,
      getDefaultEnvironment,
    } = sdk;
    const s = this.server;
    const requestInit = { headers: s.headers };
    if (s.protocol === 'http')
      return new StreamableHTTPClientTransport(new URL(s.url!), { requestInit });
    if (s.protocol === 'sse') return new SSEClientTransport(new URL(s.url!), { requestInit });
    const transport = new StdioClientTransport({
      command: s.command!,
      args: s.args,
      env: { ...getDefaultEnvironment(), ...s.env },
      cwd: s.cwd,
      stderr: 'pipe',
    });
    this.stderr.attach(transport.stderr as never, (line) =>
      this.logger.debug({ server: s.name }, `stderr: ${line}`),
    );
    return transport;
  }

  private async connect(): Promise<void> {
    const sdk = await sdkModules();
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    client.onclose = () => {
      if (this.client === client) {
        this.client = undefined;
        this.logger.warn({ server: this.name }, 'upstream connection closed');
        this.onClose?.();
      }
    };
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      try {
        this.toolList = await this.listTools(client);
        this.logger.info(
          { server: this.name, tools: this.toolList.length },
          'upstream tools changed',
        );
        this.onToolsChanged?.();
      } catch (error) {
        this.logger.warn(
          { server: this.name, err: (error as Error).message },
          'listing changed tools failed',
        );
      }
    });
    const started = Date.now();
    this.handshaking = client;
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
        client
          .connect(this.transport(sdk), { timeout: timeoutMs })
          .then(() => this.listTools(client)),
        deadline,
      ]);
      this.toolList = tools;
      this.client = client;
      this.logger.debug(
        { server: this.name, tools: tools.length, ms: Date.now() - started },
        'upstream connected',
      );
    } catch (error) {
      await client.close().catch(() => {});
      // Let the child flush what it wrote before it died.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const tail = this.stderr.value;
      const reason = (error as Error).message;
      throw new Error(tail ? `${reason}; its stderr ends with: ${tail}` : reason);
    } finally {
      clearTimeout(timer);
      this.handshaking = undefined;
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
          description: t.description,
          inputSchema: t.inputSchema as Record<string, unknown>,
          outputSchema: t.outputSchema as Record<string, unknown> | undefined,
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

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // A hung upstream must not hold up its removal: closing the transport ends the handshake.
    await this.handshaking?.close().catch(() => {});
    await this.starting?.catch(() => {});
    await client?.close().catch(() => {});
    // A connect that was in flight when stop() began.
    const late = this.client as Client | undefined;
    this.client = undefined;
    await late?.close().catch(() => {});
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const client = this.client;
    if (!client) throw new Error(`server '${this.name}' is not connected`);
    return (await client.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal,
      timeout: options.timeoutMs ?? UNBOUNDED_CALL_TIMEOUT_MS,
    })) as CallToolResult;
  }
}
