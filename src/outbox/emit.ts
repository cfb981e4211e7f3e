/**
 * Writes an event into the outbox. Always call it with the transaction that makes the change
 * the event describes: the change and its event commit together or not at all.
 */

import type { DbOrTx } from '../db/client';
import { events } from '../db/schema/index';
import type { EventFields } from '../modules/webhooks/event-data/event-data.schemas';
import { newId } from '../shared/ids';
import type { AnyEventType } from './event-types';
import { fanOutEvent } from './fanout';

export interface EventInput<T extends AnyEventType = AnyEventType> {
  clientId: string;
  type: T;
  /** Exactly the fields the event's documented schema lists (src/modules/webhooks/event-data). */
  data: EventFields<T>;
  /** When the change happened (for payments, the network's transition time when known). */
  occurredAt: Date;
  /** Deduplication at source: a second emit with the same key is a no-op. */
  dedupKey: string;
}

export interface EmittedEvent {
  id: string;
  clientId: string;
  type: AnyEventType;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** Returns the new event, or null when an event with the same dedup key already exists. */
export async function emitEvent<T extends AnyEventType>(
  tx: DbOrTx,
  input: EventInput<T>,
): Promise<EmittedEvent | null> {
  const id = newId();
  const inserted = await tx
    .insert(events)
    .values({
      id,
      clientId: input.clientId,
      type: input.type,
      version: 'v1',
      occurredAt: input.occurredAt,
      data: input.data,
      dedupKey: input.dedupKey,
    })
    .onConflictDoNothing({ target: events.dedupKey })
    .returning({ id: events.id });
  if (inserted.length === 0) return null;
  const event: EmittedEvent = {
    id,
    clientId: input.clientId,
    type: input.type,
    occurredAt: input.occurredAt,
    data: input.data,
  };
  // Same transaction: the event and its webhook deliveries commit together or not at all.
  await fanOutEvent(tx, event);
  return event;
}
