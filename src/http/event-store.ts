/**
 * @module A bounded in-memory event store for one Streamable HTTP session: SSE events get ids
 * (`<stream>_<n>`) so a client whose stream broke can resume with Last-Event-ID. It keeps the
 * newest events within MAX_STORED_EVENTS, MAX_STORED_EVENT_BYTES and the gateway-wide
 * EventBudget (the oldest go first); a resume that would miss an event no longer stored is
 * refused (getStreamIdForEventId answers undefined, as the SDK's EventStore contract says).
 */
import type {
  EventId,
  EventStore,
  StreamId,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { EventBudget, EventHolder } from './event-budget.ts';

/** Events kept per session (the oldest go first). */
export const MAX_STORED_EVENTS = 1000;
/** Bytes the stored events of one session may take; a larger event is sent but never stored. */
export const MAX_STORED_EVENT_BYTES = 8 * 1_048_576;
/** Bytes counted per event beside its JSON text: the id, the entry and the stream's record. */
export const STORED_EVENT_OVERHEAD_BYTES = 256;
/** What the priming event's `retry:` tells clients to wait before they reconnect. */
export const SSE_RETRY_MS = 1000;

interface StoredEvent {
  streamId: StreamId;
  /** The message as JSON text: its size is known exactly, and it holds no object graph. */
  json: string;
  bytes: number;
  ticket: number;
}

/** What the store knows of one stream: its last event, and the last one it does not hold. */
interface StreamRecord {
  last: number;
  droppedThrough: number;
}

export class MemoryEventStore implements EventStore, EventHolder {
  private readonly events = new Map<EventId, StoredEvent>();
  /** Most recently active last, at most MAX_STORED_EVENTS; a stream not here cannot resume. */
  private readonly streams = new Map<StreamId, StreamRecord>();
  private next = 0;
  private used = 0;

  constructor(
    private readonly budget: EventBudget,
    private readonly maxBytes = MAX_STORED_EVENT_BYTES,
    private readonly maxEvents = MAX_STORED_EVENTS,
  ) {}

  /** The bytes this store's events take now (JSON text plus the per-event overhead). */
  get bytes(): number {
    return this.used;
  }

  /** The events held now. */
  get size(): number {
    return this.events.size;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const sequence = ++this.next;
    const id = `${streamId}_${sequence}`;
    const stream = this.track(streamId, sequence);
    // A priming event carries no message: the stream's record is all a resume from it needs.
    if (!isMessage(message)) return id;
    const json = JSON.stringify(message);
    const bytes = Buffer.byteLength(json) + STORED_EVENT_OVERHEAD_BYTES;
    if (bytes > this.maxBytes || bytes > this.budget.maxBytes) {
      stream.droppedThrough = sequence;
      return id;
    }
    while (this.events.size >= this.maxEvents || this.used + bytes > this.maxBytes) {
      const oldest = this.events.keys().next().value as EventId;
      this.budget.release(this.events.get(oldest)!.ticket);
      this.evicted(oldest);
    }
    const event: StoredEvent = { streamId, json, bytes, ticket: 0 };
    this.events.set(id, event);
    this.used += bytes;
    event.ticket = this.budget.take(this, id, bytes);
    return id;
  }

  /** Forgets an event (the budget already released it); the stream can no longer resume before it. */
  evicted(eventId: EventId): void {
    const event = this.events.get(eventId);
    if (!event) return;
    this.events.delete(eventId);
    this.used -= event.bytes;
    const stream = this.streams.get(event.streamId);
    const sequence = sequenceOf(eventId);
    if (stream && sequence > stream.droppedThrough) stream.droppedThrough = sequence;
  }

  /**
   * The stream of `eventId` when every later event of that stream is still stored, else
   * undefined: the SDK then refuses the resume instead of replaying with a silent gap.
   */
  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.resumable(eventId);
  }

  /** Sends the events of `lastEventId`'s stream that came after it, in order. */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = this.resumable(lastEventId);
    if (streamId === undefined)
      throw new Error(`event ${lastEventId} cannot be resumed: later events are no longer stored`);
    const after = sequenceOf(lastEventId);
    for (const [id, event] of [...this.events]) {
      if (event.streamId !== streamId || sequenceOf(id) <= after) continue;
      await send(id, JSON.parse(event.json) as JSONRPCMessage);
    }
    return streamId;
  }

  /** Drops every event and gives its bytes back to the budget (the session ended). */
  clear(): void {
    for (const event of this.events.values()) this.budget.release(event.ticket);
    this.events.clear();
    this.streams.clear();
    this.used = 0;
  }

  /** The stream `eventId` (an id this store gave out) can resume from, or undefined. */
  resumable(eventId: EventId): StreamId | undefined {
    const at = eventId.lastIndexOf('_');
    if (at <= 0) return undefined;
    const streamId = eventId.slice(0, at);
    const sequence = sequenceOf(eventId);
    const stream = this.streams.get(streamId);
    if (!stream || sequence === 0 || sequence > stream.last) return undefined;
    return sequence >= stream.droppedThrough ? streamId : undefined;
  }

  private track(streamId: StreamId, sequence: number): StreamRecord {
    const stream = this.streams.get(streamId) ?? { last: 0, droppedThrough: 0 };
    stream.last = sequence;
    // Re-inserted: the least recently active stream is first, and goes first.
    this.streams.delete(streamId);
    this.streams.set(streamId, stream);
    if (this.streams.size > this.maxEvents) this.streams.delete(this.streams.keys().next().value!);
    return stream;
  }
}

function sequenceOf(eventId: EventId): number {
  const sequence = Number(eventId.slice(eventId.lastIndexOf('_') + 1));
  return Number.isSafeInteger(sequence) && sequence > 0 ? sequence : 0;
}

function isMessage(message: JSONRPCMessage): boolean {
  return message !== null && typeof message === 'object' && 'jsonrpc' in message;
}
