/**
 * Fan-out of one event into delivery rows, inside the transaction that writes the event:
 * the client's main webhook (when enabled and subscribed) and every enabled destination whose
 * event types match (empty = all). `webhook.test` goes to the main webhook only, whatever the
 * subscription. The body is built here once and stored with each delivery.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../db/client';
import { clients, webhookDeliveries, webhookDestinations } from '../db/schema/index';
import { newId } from '../shared/ids';
import { buildEnvelopeBody } from './envelope';

export interface FanoutEvent {
  id: string;
  clientId: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

export const subscribes = (eventTypes: readonly string[] | null | undefined, type: string): boolean =>
  !eventTypes || eventTypes.length === 0 || eventTypes.includes(type);

/** Creates the delivery rows of an event; returns how many. */
export async function fanOutEvent(tx: DbOrTx, event: FanoutEvent): Promise<number> {
  const [client] = await tx
    .select({
      webhookUrl: clients.webhookUrl,
      webhookEnabled: clients.webhookEnabled,
      webhookEventTypes: clients.webhookEventTypes,
    })
    .from(clients)
    .where(eq(clients.id, event.clientId));
  if (!client) return 0;
  const body = buildEnvelopeBody(event);
  const rows: PgInsertValue<typeof webhookDeliveries>[] = [];
  // Due at once: oldest-due-first ordering puts it among retries by when the change happened
  // (never in the future, even if the reported transition time is ahead of ours).
  const nextAttemptAt = sql`least(${event.occurredAt.toISOString()}::timestamptz, now())`;
  const base = { eventId: event.id, clientId: event.clientId, eventType: event.type, body, nextAttemptAt };

  if (event.type === 'webhook.test') {
    if (client.webhookUrl) rows.push({ ...base, id: newId(), url: client.webhookUrl, destinationId: null });
  } else {
    if (client.webhookUrl && client.webhookEnabled && subscribes(client.webhookEventTypes, event.type))
      rows.push({ ...base, id: newId(), url: client.webhookUrl, destinationId: null });
    const destinations = await tx
      .select({
        id: webhookDestinations.id,
        url: webhookDestinations.url,
        eventTypes: webhookDestinations.eventTypes,
      })
      .from(webhookDestinations)
      .where(
        and(
          eq(webhookDestinations.clientId, event.clientId),
          eq(webhookDestinations.enabled, true),
          isNull(webhookDestinations.deletedAt),
        ),
      );
    for (const d of destinations)
      if (subscribes(d.eventTypes, event.type))
        rows.push({ ...base, id: newId(), url: d.url, destinationId: d.id });
  }
  if (rows.length > 0) await tx.insert(webhookDeliveries).values(rows);
  return rows.length;
}
