/**
 * @module The 2026-07-28 leg of an MCP endpoint: a request that carries the per-request `_meta`
 * envelope is served by the 2.x SDK's `createMcpHandler`, one server instance per request, with no
 * session: any instance of a cluster can answer any request. `tools/list_changed` reaches clients
 * on their `subscriptions/listen` streams. 2025-era traffic keeps its sessions (mcp-sessions.ts).
 */
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Runtime } from '../execution/index.ts';
import type { Dialect } from '../mcp/dialects.ts';
import { createEraServer } from '../mcp/era-server.ts';
import type { Logger } from '../util/logger.ts';

/** Where a 2026-07-28 request names its protocol version (`_meta`). */
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
/** The first revision of the per-request envelope. */
const FIRST_MODERN_VERSION = '2026-07-28';

export class ModernMcp {
  private readonly handler: McpHttpHandler;

  constructor(runtime: Runtime, dialect: Dialect, logger: Logger) {
    this.handler = createMcpHandler((context) => createEraServer(runtime, dialect, context), {
      legacy: 'reject',
      onerror: (error) => logger.debug({ err: error.message }, 'mcp 2026-07-28 request refused'),
    });
    const announce = () => this.handler.notify.toolsChanged();
    runtime.registry.on('tools', announce);
    // Code tools are listed beside code_execution (not on the code mode route).
    if (dialect === 'default') runtime.codeTools?.on('changed', announce);
  }

  /**
   * Whether a session-less POST with this parsed body goes to the 2026-07-28 handler: it claims
   * the envelope (a `_meta` protocol version in one of its messages, or a 2026 or later
   * MCP-Protocol-Version header). That is the SDK's own rule (isLegacyRequest is false exactly
   * for these); checked here on the body already parsed, it is not paid twice per request. The
   * handler answers a malformed claim itself.
   */
  static claims(request: Request, body: unknown): boolean {
    const header = request.headers.get('mcp-protocol-version');
    if (header !== null && header >= FIRST_MODERN_VERSION) return true;
    const messages = Array.isArray(body) ? body : [body];
    return messages.some((m) => {
      const meta = (m as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
      return typeof meta === 'object' && meta !== null && meta[VERSION_KEY] !== undefined;
    });
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
