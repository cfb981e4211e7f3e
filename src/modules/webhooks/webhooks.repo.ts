/** Queries of the webhooks module; every one filters by client_id. */
import { and, count, desc, eq, getTableColumns, inArray, isNull, like, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  clients,
  type DeliveryStatus,
  events,
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookDestinations,
} from '../../db/schema/index';

export type DestinationRow = typeof webhookDestinations.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

export async function findSubscription(db: DbOrTx, clientId: string) {
  const [row] = await db
    .select({
      webhookUrl: clients.webhookUrl,
      webhookEnabled: clients.webhookEnabled,
      webhookEventTypes: clients.webhookEventTypes,
    })
    .from(clients)
    .where(eq(clients.id, clientId));
  return row;
}

export async function updateSubscription(
  db: DbOrTx,
  clientId: string,
  set: {
    webhookUrl?: string | null;
    webhookEnabled?: boolean;
    webhookEventTypes?: string[];
    webhookSecretEnc?: string;
  },
) {
  const [row] = await db
    .update(clients)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(clients.id, clientId))
    .returning({
      webhookUrl: clients.webhookUrl,
      webhookEnabled: clients.webhookEnabled,
      webhookEventTypes: clients.webhookEventTypes,
    });
  return row;
}

const liveDestination = (clientId: string, id: string) =>
  and(
    eq(webhookDestinations.id, id),
    eq(webhookDestinations.clientId, clientId),
    isNull(webhookDestinations.deletedAt),
  );

export async function insertDestination(db: DbOrTx, values: typeof webhookDestinations.$inferInsert) {
  const [row] = await db.insert(webhookDestinations).values(values).returning();
  return row!;
}

export async function findDestination(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<DestinationRow | undefined> {
  const [row] = await db.select().from(webhookDestinations).where(liveDestination(clientId, id));
  return row;
}

export async function listDestinations(db: DbOrTx, clientId: string, limit: number, offset: number) {
  const where = and(eq(webhookDestinations.clientId, clientId), isNull(webhookDestinations.deletedAt));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(webhookDestinations)
      .where(where)
      .orderBy(desc(webhookDestinations.createdAt), desc(webhookDestinations.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(webhookDestinations).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function updateDestination(
  db: DbOrTx,
  clientId: string,
  id: string,
  set: Partial<
    Pick<DestinationRow, 'url' | 'description' | 'eventTypes' | 'enabled' | 'secretEnc' | 'deletedAt'>
  >,
  now: Date,
) {
  const [row] = await db
    .update(webhookDestinations)
    .set({ ...set, updatedAt: now })
    .where(liveDestination(clientId, id))
    .returning();
  return row;
}

/** Deliveries still waiting for a deleted destination are closed (they can no longer be sent). */
export async function closeDeliveriesOfDestination(
  db: DbOrTx,
  clientId: string,
  destinationId: string,
  now: Date,
) {
  await db
    .update(webhookDeliveries)
    .set({
      status: 'dead_letter',
      nextAttemptAt: null,
      lockedUntil: null,
      leaseToken: null,
      lastError: 'destination deleted',
      updatedAt: now,
    })
    .where(
      and(
        eq(webhookDeliveries.clientId, clientId),
        eq(webhookDeliveries.destinationId, destinationId),
        sql`${webhookDeliveries.status} in ('pending', 'retrying')`,
      ),
    );
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
  destinationId?: string;
  eventId?: string;
  transactionId?: string;
}

/** A delivery with whether its destination was deleted since (a retry is then refused, so not offered). */
const deliveryWithDestination = () => ({
  ...getTableColumns(webhookDeliveries),
  destinationGone: sql<boolean>`(${webhookDeliveries.destinationId} is not null and not exists (
    select 1 from ${webhookDestinations} d
     where d.id = ${webhookDeliveries.destinationId} and d.client_id = ${webhookDeliveries.clientId}
       and d.deleted_at is null))`.mapWith(Boolean),
});

export async function listDeliveries(
  db: DbOrTx,
  clientId: string,
  f: DeliveryFilter,
  limit: number,
  offset: number,
) {
  const conds: SQL[] = [eq(webhookDeliveries.clientId, clientId)];
  if (f.status) conds.push(eq(webhookDeliveries.status, f.status));
  if (f.eventType) conds.push(eq(webhookDeliveries.eventType, f.eventType));
  if (f.destinationId) conds.push(eq(webhookDeliveries.destinationId, f.destinationId));
  if (f.eventId) conds.push(eq(webhookDeliveries.eventId, f.eventId));
  // A payment's events carry its id as the prefix of their deduplication key (payments/status.service).
  if (f.transactionId)
    conds.push(
      inArray(
        webhookDeliveries.eventId,
        db
          .select({ id: events.id })
          .from(events)
          .where(and(eq(events.clientId, clientId), like(events.dedupKey, `payment:${f.transactionId}:%`))),
      ),
    );
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    db
      .select(deliveryWithDestination())
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

export async function findDelivery(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<(DeliveryRow & { destinationGone: boolean }) | undefined> {
  const [row] = await db
    .select(deliveryWithDestination())
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.clientId, clientId)));
  return row;
}

export async function listAttempts(db: DbOrTx, clientId: string, deliveryId: string): Promise<AttemptRow[]> {
  return db
    .select()
    .from(webhookDeliveryAttempts)
    .where(
      and(eq(webhookDeliveryAttempts.deliveryId, deliveryId), eq(webhookDeliveryAttempts.clientId, clientId)),
    )
    .orderBy(webhookDeliveryAttempts.attempt, webhookDeliveryAttempts.createdAt);
}

/** Compare-and-set: puts a delivery back in the queue, due now, with a fresh attempt budget. */
export async function requeueDelivery(
  db: DbOrTx,
  d: DeliveryRow,
  status: DeliveryStatus,
  resetBudget: boolean,
  now: Date,
) {
  const [row] = await db
    .update(webhookDeliveries)
    .set({
      status,
      ...(resetBudget ? { cycleAttempts: 0 } : {}),
      nextAttemptAt: now,
      lockedUntil: null,
      leaseToken: null,
      updatedAt: now,
    })
    .where(
      and(
        eq(webhookDeliveries.id, d.id),
        eq(webhookDeliveries.clientId, d.clientId),
        eq(webhookDeliveries.status, d.status),
        d.leaseToken === null
          ? isNull(webhookDeliveries.leaseToken)
          : eq(webhookDeliveries.leaseToken, d.leaseToken),
      ),
    )
    .returning();
  return row;
}
