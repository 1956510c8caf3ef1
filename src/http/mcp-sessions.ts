/**
 * @module MCP Streamable HTTP sessions at /mcp (one SDK server per session), and the legacy
 * SSE transport at /sse + /messages. Sessions end on DELETE, on transport close, after
 * SESSION_IDLE_MS without a request, and at shutdown; at most `max_mcp_sessions` at once (a new
 * one beyond is refused with 503).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Caller, Runtime } from '../execution/index.ts';
import type { Dialect } from '../mcp/dialects.ts';
import { createDialectServer, toAuthInfo } from '../mcp/index.ts';
import type { Logger } from '../util/logger.ts';
import { cancelOnClose } from './cancel-on-close.ts';
import { EventBudget } from './event-budget.ts';
import { MemoryEventStore, SSE_RETRY_MS } from './event-store.ts';
import { answersInJson, jsonAnswers } from './json-answers.ts';
import { ModernMcp } from './modern-mcp.ts';
import { RPC_PARSE_ERROR, RPC_SERVER_ERROR, rpcErrorResponse } from './rpc-error-response.ts';

export const SESSION_IDLE_MS = 30 * 60_000;
const SWEEP_EVERY_MS = 60_000;

interface Session {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport | SSEServerTransport;
  lastSeen: number;
  /** The Streamable HTTP session's replay events (emptied when the session ends). */
  events?: MemoryEventStore;
  /** Handles a POST whose answer is plain JSON (undefined: every answer is an SSE stream). */
  answerJson?: ReturnType<typeof jsonAnswers>;
}

export const TOO_MANY_SESSIONS = 'TOO_MANY_SESSIONS';

export interface McpSessionsOptions {
  /** code_execution and the code tools (default), or `execute` alone (code mode). */
  dialect?: Dialect;
  /** Where the Streamable HTTP endpoint is, for messages. */
  endpoint?: string;
  /** Where legacy SSE clients POST their messages. */
  messagesPath?: string;
  /** The replay byte budget shared with the gateway's other session set. */
  eventBudget?: EventBudget;
}

/** The first protocol version whose clients the SDK sends SSE priming events to. */
const PRIMING_PROTOCOL_VERSION = '2025-11-25';

/**
 * Every POST SSE stream starts with a priming event (an id and a retry hint), whatever protocol
 * version the client names: the SDK primes only 2025-11-25 clients, but any client can resume.
 */
function primeEveryStream(transport: WebStandardStreamableHTTPServerTransport): void {
  type Prime = (
    controller: unknown,
    encoder: unknown,
    streamId: string,
    version: string,
  ) => Promise<void>;
  const target = transport as unknown as { writePrimingEvent: Prime };
  const original = target.writePrimingEvent.bind(transport);
  target.writePrimingEvent = (controller, encoder, streamId, version) =>
    original(
      controller,
      encoder,
      streamId,
      version < PRIMING_PROTOCOL_VERSION ? PRIMING_PROTOCOL_VERSION : version,
    );
}

/** `<instance_id>.<random>`: a balancer routes a session to its owner by the part before the dot. */
export function newSessionId(instanceId: string): string {
  return `${instanceId}.${randomUUID()}`;
}

/** 400 for a resume that would miss events no longer stored (the SDK's "not found" case). */
function cannotResume(eventId: string): string {
  return `Cannot resume after event ${eventId}: later events of its stream are no longer stored (the replay buffer keeps only the newest events, within a byte budget); open the stream again without Last-Event-ID and send again any request still unanswered`;
}

/** 404 for a session this instance does not hold, saying whose it is when another instance's. */
function sessionNotFound(id: string, instanceId: string): Response {
  const owner = id.includes('.') ? id.slice(0, id.indexOf('.')) : undefined;
  return rpcErrorResponse(
    404,
    RPC_SERVER_ERROR,
    owner !== undefined && owner !== instanceId
      ? `Session not found: ${id} belongs to instance "${owner}", not this one ("${instanceId}"); initialize a new session`
      : `Session not found: ${id} (it ended; initialize a new one)`,
  );
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;
  /** Fixed at start: session ids already handed out keep naming this instance. */
  private readonly instanceId: string;
  private readonly dialect: Dialect;
  /** Session-less 2026-07-28 requests. */
  private readonly modern: ModernMcp;
  private readonly endpoint: string;
  private readonly messagesPath: string;
  private readonly eventBudget: EventBudget;
  /** Initializes under way: counted against max_mcp_sessions before their session exists. */
  private starting = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly logger: Logger,
    options: McpSessionsOptions = {},
  ) {
    this.dialect = options.dialect ?? 'default';
    this.modern = new ModernMcp(runtime, this.dialect, logger);
    this.endpoint = options.endpoint ?? '/mcp';
    this.messagesPath = options.messagesPath ?? '/messages';
    this.eventBudget = options.eventBudget ?? new EventBudget();
    this.instanceId = runtime.config().instanceId;
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
    // A changed upstream tool list changes code_execution's description.
    const announce = () => {
      for (const session of this.sessions.values())
        session.server.sendToolListChanged().catch(() => {});
      this.modern.toolsChanged();
    };
    runtime.registry.on('tools', announce);
    // Code tools are listed beside code_execution (not on the code mode route).
    if (this.dialect === 'default') runtime.codeTools?.on('changed', announce);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Handles one Streamable HTTP request. */
  async handle(request: Request, caller: Caller, token: string): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    const auth = toAuthInfo(caller, token);
    if (id) {
      const session = this.sessions.get(id);
      if (!session) return sessionNotFound(id, this.instanceId);
      if (!(session.transport instanceof WebStandardStreamableHTTPServerTransport)) {
        return rpcErrorResponse(
          400,
          RPC_SERVER_ERROR,
          `Session ${id} is a legacy SSE session; POST to /messages`,
        );
      }
      session.lastSeen = Date.now();
      const lastEventId = request.headers.get('last-event-id');
      if (request.method === 'GET' && lastEventId && !session.events?.resumable(lastEventId))
        return rpcErrorResponse(400, RPC_SERVER_ERROR, cannotResume(lastEventId));
      if (request.method !== 'POST' || !session.answerJson)
        return session.transport.handleRequest(request, { authInfo: auth });
      // A client that answers elicitation may be asked to approve a call: tools/call keeps its stream.
      const elicits = session.server.getClientCapabilities()?.elicitation !== undefined;
      return this.post(request, session.transport, session.answerJson, auth, elicits);
    }
    if (request.method !== 'POST')
      return rpcErrorResponse(
        400,
        RPC_SERVER_ERROR,
        'Bad Request: no mcp-session-id; POST initialize first',
      );
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return rpcErrorResponse(400, RPC_SERVER_ERROR, 'Parse error: the body is not JSON');
    }
    // A request with the 2026-07-28 envelope has no session: any instance answers it.
    if (await ModernMcp.claims(request, body))
      return this.modern.fetch(request, { authInfo: auth, parsedBody: body });
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some(isInitializeRequest)) {
      return rpcErrorResponse(
        400,
        RPC_SERVER_ERROR,
        'Bad Request: no mcp-session-id; POST initialize first',
      );
    }
    const full = this.refuseWhenFull();
    if (full) return full;
    this.starting++;
    try {
      return await this.initialize(request, caller, auth, body);
    } finally {
      this.starting--;
    }
  }

  /** A 503 naming max_mcp_sessions when this endpoint set holds that many sessions already. */
  refuseWhenFull(): Response | undefined {
    const max = this.runtime.config().maxMcpSessions;
    if (this.sessions.size + this.starting < max) return undefined;
    const minutes = SESSION_IDLE_MS / 60_000;
    return rpcErrorResponse(
      503,
      RPC_SERVER_ERROR,
      `too many MCP sessions: ${this.endpoint} already holds ${max}, the limit "max_mcp_sessions"; close unused sessions (DELETE ${this.endpoint}), wait until idle ones end (${minutes} minutes without a request), or raise "max_mcp_sessions" in the config`,
      { data: { code: TOO_MANY_SESSIONS, max_mcp_sessions: max } },
    );
  }

  private async initialize(
    request: Request,
    caller: Caller,
    auth: ReturnType<typeof toAuthInfo>,
    body: unknown,
  ): Promise<Response> {
    const server = createDialectServer(this.runtime, this.dialect, caller);
    const events = new MemoryEventStore(this.eventBudget);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => newSessionId(this.instanceId),
      // SSE events carry ids and a retry hint, so a client whose stream broke can resume.
      eventStore: events,
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, {
          server,
          transport,
          lastSeen: Date.now(),
          events,
          answerJson,
        });
        this.logger.debug({ session: sessionId }, 'mcp session started');
      },
      onsessionclosed: (sessionId) => this.forget(sessionId),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    primeEveryStream(transport);
    const answerJson = jsonAnswers(transport);
    if (!answerJson)
      this.logger.debug({}, 'mcp answers stay SSE: the SDK transport is not as expected');
    await server.connect(transport);
    const response = await transport.handleRequest(request, { authInfo: auth, parsedBody: body });
    // An initialize the transport refused (a wrong Accept, a batch) made no session: its server
    // would otherwise stay connected, storing every upstream log line for nobody.
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) {
      events.clear();
      await server.close().catch(() => {});
    }
    return response;
  }

  /**
   * A POST on a session: parsed once here (the transport gets the parsed body), then answered in
   * JSON when it can never need a stream, else over SSE. A body that is not JSON (or not sent as
   * JSON) goes to the transport unread, which answers its usual error.
   */
  private async post(
    request: Request,
    transport: WebStandardStreamableHTTPServerTransport,
    answerJson: NonNullable<Session['answerJson']>,
    authInfo: ReturnType<typeof toAuthInfo>,
    elicits: boolean,
  ): Promise<Response> {
    if (!request.headers.get('content-type')?.includes('application/json'))
      return transport.handleRequest(request, { authInfo });
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch {
      return rpcErrorResponse(400, RPC_PARSE_ERROR, 'Parse error: Invalid JSON');
    }
    cancelOnClose(request, body, transport);
    return answersInJson(body, request.headers.get('accept'), elicits)
      ? answerJson(request, { authInfo, parsedBody: body })
      : transport.handleRequest(request, { authInfo, parsedBody: body });
  }

  /**
   * Opens a legacy SSE stream on `res`; POSTs to `/messages?sessionId=` feed it. Answers the
   * refusal instead when the set is full (the caller sends it).
   */
  async openSse(res: ServerResponse, caller: Caller): Promise<Response | undefined> {
    const full = this.refuseWhenFull();
    if (full) return full;
    const server = createDialectServer(this.runtime, this.dialect, caller);
    const transport = new SSEServerTransport(this.messagesPath, res);
    // The SDK makes a bare UUID; the endpoint it announces on start carries this one instead.
    (transport as unknown as { _sessionId: string })._sessionId = newSessionId(this.instanceId);
    this.sessions.set(transport.sessionId, { server, transport, lastSeen: Date.now() });
    transport.onclose = () => this.forget(transport.sessionId);
    res.on('close', () => void this.end(transport.sessionId));
    await server.connect(transport);
    return undefined;
  }

  /** Delivers one POSTed message to a legacy SSE session. */
  async postSse(
    sessionId: string,
    message: unknown,
    caller: Caller,
    token: string,
  ): Promise<Response> {
    const session = this.sessions.get(sessionId);
    if (!session || !(session.transport instanceof SSEServerTransport)) {
      return sessionNotFound(sessionId, this.instanceId);
    }
    session.lastSeen = Date.now();
    await session.transport.handleMessage(message, { authInfo: toAuthInfo(caller, token) });
    return new Response('Accepted', { status: 202 });
  }

  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.events?.clear();
    this.logger.debug({ session: id }, 'mcp session ended');
  }

  private async end(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.forget(id);
    await session.server.close().catch(() => {});
  }

  private sweep(): void {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) if (session.lastSeen < cutoff) void this.end(id);
  }

  /** Closes every session; idempotent. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await this.modern.close().catch(() => {});
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id)));
  }
}
