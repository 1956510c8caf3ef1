/**
 * @module A transport wrapper that measures every message an upstream sends before the SDK
 * (or anything recursive) touches it: a response over the bounds becomes a JSON-RPC error
 * for its own request id, so only that call fails; any other message over them is dropped.
 * A 2026-07-28 result without `resultType` is read as `complete`, as the spec says a client
 * must (the SDK refuses it).
 */
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/client';
import { MAX_UPSTREAM_RESULT_DEPTH } from '../config/defaults.ts';
import { measureJson } from './result-bounds.ts';
import { boundedSchema } from './schema-bounds.ts';

/** JSON-RPC error code of a response the gateway refused; `data` says why. */
export const RESULT_REFUSED_CODE = -32097;

/** The `data` of a refused response, read back by the registry. */
export interface RefusedData {
  codemux_refused: 'INVALID_OUTPUT' | 'RESULT_TOO_LARGE';
  message: string;
}

/** The only notifications the gateway's client acts on; it never asks for progress. */
const HANDLED_NOTIFICATIONS = new Set([
  'notifications/tools/list_changed',
  'notifications/cancelled',
  // A 2026-07-28 server's answer to the tools/list_changed subscription (subscriptions/listen).
  'notifications/subscriptions/acknowledged',
]);

/** Upstream log lines forwarded to clients (logging/setLevel), at most this many a second in all. */
export const MAX_FORWARDED_LOGS_PER_SECOND = 100;
const LOG_NOTIFICATION = 'notifications/message';
let logWindowStart = 0;
let logsInWindow = 0;

/** A log line within this second's allowance: a flood of them is dropped, not parsed and forwarded. */
function logAllowed(): boolean {
  const now = Date.now();
  if (now - logWindowStart >= 1000) {
    logWindowStart = now;
    logsInWindow = 0;
  }
  return ++logsInWindow <= MAX_FORWARDED_LOGS_PER_SECOND;
}

/** Marks a message the line reader already admitted, so its log allowance is not spent twice. */
export const ADMITTED = Symbol('codemux.admitted');

/** A notification the gateway does not act on (progress, resources..., logs past the allowance): dropped unread. */
export function isIgnoredNotification(message: unknown): boolean {
  const m = message as { method?: unknown; id?: unknown } | null;
  if (typeof m !== 'object' || m === null || typeof m.method !== 'string' || m.id !== undefined) {
    return false;
  }
  if (m.method === LOG_NOTIFICATION) return !logAllowed();
  return !HANDLED_NOTIFICATIONS.has(m.method);
}

/**
 * A tools/list answer's schemas are bounded one tool at a time: a hostile schema is replaced by
 * its permissive stand-in, so one deep or huge schema costs its own tool's checks, not the server.
 */
function boundListedSchemas(result: unknown, onDropped: (reason: string) => void): void {
  const tools = (result as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return;
  for (const tool of tools as Array<Record<string, unknown>>) {
    if (typeof tool !== 'object' || tool === null) continue;
    for (const field of ['inputSchema', 'outputSchema'] as const) {
      const schema = tool[field];
      if (typeof schema !== 'object' || schema === null) continue;
      const bounded = boundedSchema(schema as Record<string, unknown>);
      if (!bounded.excess) continue;
      tool[field] = bounded.schema;
      onDropped(`tools/list: ${String(tool.name)} ${field}: ${bounded.excess}`);
    }
  }
}

/** The `_meta` key a 2026-07-28 request carries its protocol version in. */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** Unanswered request ids a transport remembers (a request never answered must not grow it forever). */
const MAX_REMEMBERED_REQUESTS = 10_000;

/** Adds `id` to `ids`, forgetting the oldest past MAX_REMEMBERED_REQUESTS. */
function remember(ids: Set<unknown>, id: unknown): void {
  ids.add(id);
  if (ids.size > MAX_REMEMBERED_REQUESTS) ids.delete(ids.values().next().value);
}

/** A request sent in the 2026-07-28 envelope (its `_meta` names the protocol version). */
function isModernRequest(message: { params?: unknown }): boolean {
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  return (
    typeof meta === 'object' && meta !== null && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)
  );
}

/** A result without `resultType` is complete (2026-07-28: "the client MUST assume complete"). */
function completeByDefault(message: { result?: unknown }): void {
  const result = message.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return;
  if (!Object.hasOwn(result, 'resultType'))
    (result as Record<string, unknown>).resultType = 'complete';
}

export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** Ids of tools/list requests sent and not yet answered. */
  private readonly listRequests = new Set<unknown>();
  /** Ids of 2026-07-28 requests sent and not yet answered. */
  private readonly modernRequests = new Set<unknown>();

  constructor(
    private readonly inner: Transport,
    private readonly onDropped: (reason: string) => void,
    /** The largest message accepted, as JSON (maxUpstreamMessageBytes). */
    private readonly maxMessageBytes: () => number,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.receive(message, extra);
    // The SDK tells a stdio transport by these two properties (there a silent version probe
    // means a 2025 server, on HTTP an outage): a wrapper must show them only for stdio.
    if ('stderr' in inner && 'pid' in inner) {
      const stdio = inner as Transport & { stderr: unknown; pid: unknown };
      Object.defineProperties(this, {
        stderr: { get: () => stdio.stderr, enumerable: true },
        pid: { get: () => stdio.pid, enumerable: true },
      });
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { method?: unknown; id?: unknown; params?: unknown };
    if (m.method !== undefined && m.id !== undefined) {
      if (m.method === 'tools/list') remember(this.listRequests, m.id);
      if (isModernRequest(m)) remember(this.modernRequests, m.id);
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const id = (message as { id?: unknown }).id;
    if (id !== undefined && this.listRequests.delete(id)) {
      boundListedSchemas((message as { result?: unknown }).result, this.onDropped);
    }
    if (id !== undefined && this.modernRequests.delete(id))
      completeByDefault(message as { result?: unknown });
    const admitted = (message as { [ADMITTED]?: boolean })[ADMITTED] === true;
    if (!admitted && isIgnoredNotification(message)) return;
    const m = message as { id?: unknown; method?: unknown; result?: unknown; params?: unknown };
    const verdict = measureJson(
      m.result ?? m.params ?? message,
      MAX_UPSTREAM_RESULT_DEPTH,
      this.maxMessageBytes(),
    );
    if (verdict.ok) {
      this.onmessage?.(message, extra);
      return;
    }
    const isResponse =
      m.method === undefined && (typeof m.id === 'number' || typeof m.id === 'string');
    if (!isResponse) {
      this.onDropped(`${String(m.method ?? 'a message')}: ${verdict.message}`);
      return;
    }
    const data: RefusedData = { codemux_refused: verdict.code, message: verdict.message };
    this.onmessage?.(
      {
        jsonrpc: '2.0',
        id: m.id as string | number,
        error: { code: RESULT_REFUSED_CODE, message: verdict.message, data },
      },
      extra,
    );
  }
}

/** The refusal carried by an error the SDK raised for a refused response, if it is one. */
export function refusalOf(error: unknown): RefusedData | undefined {
  const e = error as { code?: unknown; data?: Partial<RefusedData> };
  if (e?.code !== RESULT_REFUSED_CODE || typeof e.data?.message !== 'string') return undefined;
  return e.data as RefusedData;
}
