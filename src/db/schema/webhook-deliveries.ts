import { desc, sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { events } from './events';
import { webhookDestinations } from './webhook-destinations';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'dead_letter'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One row per (event, target): the client's main webhook (destination_id null) or a destination.
 * Created in the transaction that writes the event. The worker claims due rows with
 * FOR UPDATE SKIP LOCKED and a lease (locked_until + lease_token): a crashed worker's claims
 * become claimable again when the lease runs out, and a late result of a lost lease is ignored.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: idColumn('id'),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    destinationId: uuid('destination_id').references(() => webhookDestinations.id),
    eventType: text('event_type').notNull(),
    /** Target URL snapshot at event time. */
    url: text('url').notNull(),
    /** The exact compact JSON body sent on every attempt (byte-identical across retries). */
    body: text('body').notNull(),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    /** Attempts made in total (shown in the history). */
    attempts: integer('attempts').notNull().default(0),
    /** Attempts in the current cycle (a manual retry starts a new cycle of 8). */
    cycleAttempts: integer('cycle_attempts').notNull().default(0),
    /** When the next attempt is due (null once finished). */
    nextAttemptAt: ts('next_attempt_at'),
    lockedUntil: ts('locked_until'),
    leaseToken: uuid('lease_token'),
    lastAttemptAt: ts('last_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    succeededAt: ts('succeeded_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // In the claim's order (next_attempt_at, id): the claim reads its LIMIT rows off the index
    // instead of every due row, then sorting them (a backlog made each claim O(backlog)).
    index('webhook_deliveries_due_order_idx')
      .on(t.nextAttemptAt, t.id)
      .where(sql`${t.status} in ('pending', 'retrying')`),
    index('webhook_deliveries_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);

/** The per-attempt history of a delivery. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: idColumn('id'),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    clientId: uuid('client_id').notNull(),
    attempt: integer('attempt').notNull(),
    url: text('url').notNull(),
    startedAt: ts('started_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    responseStatus: integer('response_status'),
    /** First bytes of the response body (capped), for debugging. */
    responseBody: text('response_body'),
    error: text('error'),
    /** The status the delivery moved to after this attempt. */
    outcome: text('outcome').$type<DeliveryStatus>().notNull(),
    nextAttemptAt: ts('next_attempt_at'),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_delivery_attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);
