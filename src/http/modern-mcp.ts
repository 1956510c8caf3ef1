/**
 * @module The 2026-07-28 leg of an MCP endpoint: a request that carries the per-request `_meta`
 * envelope is served by the 2.x SDK's `createMcpHandler`, one server instance per request, with no
 * session: any instance of a cluster can answer any request. `tools/list_changed` reaches clients
 * on their `subscriptions/listen` streams. 2025-generation traffic keeps its sessions (mcp-sessions.ts,
 * which announces tool changes to both).
 */
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Runtime } from '../execution/index.ts';
import type { Dialect } from '../mcp/dialects.ts';
import { createGenerationServer } from '../mcp/generation-server.ts';
import type { Logger } from '../util/logger.ts';

/** Where a 2026-07-28 request names its protocol version (`_meta`). */
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

export class ModernMcp {
  private readonly handler: McpHttpHandler;

  constructor(runtime: Runtime, dialect: Dialect, logger: Logger) {
    this.handler = createMcpHandler(
      (context) => createGenerationServer(runtime, dialect, context),
      {
        legacy: 'reject',
        onerror: (error) => logger.debug({ err: error.message }, 'mcp 2026-07-28 request refused'),
      },
    );
  }

  /** Tells the clients listening on `subscriptions/listen` that the tool list changed. */
  toolsChanged(): void {
    this.handler.notify.toolsChanged();
  }

  /**
   * Whether a session-less POST with this parsed body goes to the 2026-07-28 handler: exactly
   * when the SDK's isLegacyRequest says it is not 2025 traffic. The two common shapes are told
   * apart here from the body the endpoint already parsed (a request whose `_meta` claims the
   * envelope, or a plain 2025 request with no claim and no MCP-Protocol-Version header), so the
   * SDK's classification is not paid twice; every other shape is left to the SDK.
   */
  static async claims(request: Request, body: unknown): Promise<boolean> {
    const message = body as { method?: unknown; params?: { _meta?: unknown } } | null;
    if (message && typeof message === 'object' && !Array.isArray(message)) {
      const meta = message.params?._meta;
      const plainMeta = meta === undefined || (typeof meta === 'object' && meta !== null);
      if (typeof message.method === 'string' && plainMeta) {
        const claimed = meta !== undefined && VERSION_KEY in (meta as object);
        if (claimed && message.method !== 'initialize') return true;
        if (!claimed && request.headers.get('mcp-protocol-version') === null) return false;
      }
    }
    return !(await isLegacyRequest(request, body));
  }

  /** Serves one 2026-07-28 request. */
  fetch(request: Request, options: { authInfo: unknown; parsedBody: unknown }): Promise<Response> {
    return this.handler.fetch(request, options as Parameters<McpHttpHandler['fetch']>[1]);
  }

  /** Ends open subscription streams and requests in flight. */
  close(): Promise<void> {
    return this.handler.close();
  }
}
