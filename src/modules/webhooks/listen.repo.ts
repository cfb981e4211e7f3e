/** Queries of the event stream (GET /webhooks/listen): the client's outbox rows by creation time. */
import { and, asc, desc, eq, gt, gte, inArray, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/client';
import { events } from '../../db/schema/index';

export type StreamEventRow = typeof events.$inferSelect;

/** A position in the stream: the creation time and id of the last event sent. */
export interface StreamCursor {
  createdAt: Date;
  id: string;
}

const typeFilter = (types: readonly string[] | null) =>
  types ? inArray(events.type, [...types]) : undefined;

/** Events after the cursor in (created_at, id) order. */
export function eventsAfter(
  db: Db,
  clientId: string,
  cursor: StreamCursor,
  types: readonly string[] | null,
  limit: number,
): Promise<StreamEventRow[]> {
  return db
    .select()
    .from(events)
    .where(
      and(
        eq(events.clientId, clientId),
        or(
          gt(events.createdAt, cursor.createdAt),
          and(eq(events.createdAt, cursor.createdAt), gt(events.id, cursor.id)),
        ),
        typeFilter(types),
      ),
    )
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(limit);
}

/**
 * Events created in [from, to], newest first: a transaction stamps created_at when it starts, so an
 * event can commit after a later-stamped one was already streamed.
 */
export function eventsBetween(
  db: Db,
  clientId: string,
  from: Date,
  to: Date,
  types: readonly string[] | null,
  limit: number,
): Promise<StreamEventRow[]> {
  return db
    .select()
    .from(events)
    .where(
      and(
        eq(events.clientId, clientId),
        gte(events.createdAt, from),
        lte(events.createdAt, to),
        typeFilter(types),
      ),
    )
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(limit);
}

export async function eventOfClient(db: Db, clientId: string, id: string): Promise<StreamEventRow | null> {
  const [row] = await db
    .select()
    .from(events)
    .where(and(eq(events.clientId, clientId), eq(events.id, id)));
  return row ?? null;
}

/** The database's current time (created_at comes from it, not from the service's clock). */
export async function databaseNow(db: Db): Promise<Date> {
  const [row] = rowsOf<{ now: Date | string }>(await db.execute(sql`select now() as now`));
  return new Date(row!.now);
}
