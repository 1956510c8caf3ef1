/**
 * @module The byte budget every session's SSE event store shares, so replay memory is bounded
 * whatever the number of sessions: over it, the oldest stored event of any session goes first.
 */
import type { EventId } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** Bytes all stored events of one gateway together may take (both endpoint sets). */
export const MAX_TOTAL_STORED_EVENT_BYTES = 64 * 1_048_576;

/** A store whose event the budget dropped: it forgets the event (without releasing it again). */
export interface EventHolder {
  evicted(eventId: EventId): void;
}

interface Held {
  holder: EventHolder;
  eventId: EventId;
  bytes: number;
}

export class EventBudget {
  /** Held events, oldest first (a Map keeps insertion order and deletes in O(1)). */
  private readonly held = new Map<number, Held>();
  private nextTicket = 0;
  private used = 0;

  constructor(readonly maxBytes = MAX_TOTAL_STORED_EVENT_BYTES) {}

  /** The bytes held now, over every store. */
  get bytes(): number {
    return this.used;
  }

  /**
   * Holds `bytes` for `holder`'s event and returns its ticket; drops the oldest events of any
   * holder (this one's newer events last) until the total fits. `bytes` must be at most maxBytes.
   */
  take(holder: EventHolder, eventId: EventId, bytes: number): number {
    const ticket = ++this.nextTicket;
    this.held.set(ticket, { holder, eventId, bytes });
    this.used += bytes;
    for (const [oldest, event] of this.held) {
      if (this.used <= this.maxBytes || oldest === ticket) break;
      this.release(oldest);
      event.holder.evicted(event.eventId);
    }
    return ticket;
  }

  /** Gives back a ticket's bytes; idempotent. */
  release(ticket: number): void {
    const event = this.held.get(ticket);
    if (!event) return;
    this.held.delete(ticket);
    this.used -= event.bytes;
  }
}
