/**
 * @module A bounded in-memory event store for one Streamable HTTP session: SSE events get ids
 * (`<stream>_<n>`) so a client whose stream broke can resume with Last-Event-ID; only the last
 * MAX_STORED_EVENTS are kept, older ones cannot be replayed.
 */
import type {
  EventId,
  EventStore,
  StreamId,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Events kept per session (the oldest go first). */
export const MAX_STORED_EVENTS = 1000;
/** What the priming event's `retry:` tells clients to wait before they reconnect. */
export const SSE_RETRY_MS = 1000;

interface StoredEvent {
  streamId: StreamId;
  message: JSONRPCMessage;
}

export class MemoryEventStore implements EventStore {
  private readonly events = new Map<EventId, StoredEvent>();
  private next = 0;

  constructor(private readonly maxEvents = MAX_STORED_EVENTS) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}_${++this.next}`;
    this.events.set(id, { streamId, message });
    while (this.events.size > this.maxEvents) {
      const oldest = this.events.keys().next().value as EventId;
      this.events.delete(oldest);
    }
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId ?? streamOf(eventId);
  }

  /** Sends the events of `lastEventId`'s stream that came after it, in order. */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = this.events.get(lastEventId)?.streamId ?? streamOf(lastEventId);
    if (streamId === undefined) return '';
    const after = sequence(lastEventId);
    for (const [id, event] of this.events) {
      // Priming events carry no message; they only mark the stream's start.
      if (event.streamId === streamId && sequence(id) > after && isMessage(event.message))
        await send(id, event.message);
    }
    return streamId;
  }
}

function streamOf(eventId: EventId): StreamId | undefined {
  const at = eventId.lastIndexOf('_');
  return at > 0 ? eventId.slice(0, at) : undefined;
}

function sequence(eventId: EventId): number {
  return Number(eventId.slice(eventId.lastIndexOf('_') + 1)) || 0;
}

function isMessage(message: JSONRPCMessage): boolean {
  return message !== null && typeof message === 'object' && 'jsonrpc' in message;
}
