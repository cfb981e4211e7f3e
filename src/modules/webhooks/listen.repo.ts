/**
 * Queries of the event stream (GET /webhooks/listen): the client's outbox rows by creation time.
 * Positions are compared in microseconds (PostgreSQL's precision; a JS Date keeps milliseconds),
 * with a millisecond bound first so the (client_id, created_at) index still narrows the scan.
 */
import { and, asc, desc, eq, gte, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/client';
import { events } from '../../db/schema/index';

/** A position in the stream: creation time in microseconds since the epoch, and the event id. */
export interface StreamCursor {
  us: bigint;
  id: string;
}

const createdUs = sql<string>`(extract(epoch from ${events.createdAt}) * 1000000)::bigint::text`;
const columns = {
  id: events.id,
  clientId: events.clientId,
  type: events.type,
  occurredAt: events.occurredAt,
  data: events.data,
  createdUs,
};
type Raw = {
  id: string;
  clientId: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  createdUs: string;
};
export type StreamEventRow = Omit<Raw, 'createdUs'> & { us: bigint };

const toRow = (r: Raw): StreamEventRow => {
  const { createdUs: text, ...rest } = r;
  return { ...rest, us: BigInt(text) };
};
/** The millisecond at or before `us`, as a Date for the indexed bound. */
const msFloor = (us: bigint) => new Date(Number(us / 1000n));
const typeFilter = (types: readonly string[] | null) =>
  types ? inArray(events.type, [...types]) : undefined;
const usOf = sql`(extract(epoch from ${events.createdAt}) * 1000000)::bigint`;

/** Events after the cursor in (created_at, id) order. */
export async function eventsAfter(
  db: Db,
  clientId: string,
  cursor: StreamCursor,
  types: readonly string[] | null,
  limit: number,
): Promise<StreamEventRow[]> {
  const rows = await db
    .select(columns)
    .from(events)
    .where(
      and(
        eq(events.clientId, clientId),
        gte(events.createdAt, msFloor(cursor.us)),
        sql`(${usOf}, ${events.id}) > (${cursor.us.toString()}::bigint, ${cursor.id}::uuid)`,
        typeFilter(types),
      ),
    )
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(limit);
  return rows.map(toRow);
}

/**
 * Events created from `fromMs` up to the cursor position, newest first: a transaction stamps
 * created_at when it starts, so an event can commit after a later-stamped one was streamed.
 */
export async function eventsUpTo(
  db: Db,
  clientId: string,
  fromMs: number,
  cursor: StreamCursor,
  types: readonly string[] | null,
  limit: number,
): Promise<StreamEventRow[]> {
  const upTo: SQL = sql`(${usOf}, ${events.id}) <= (${cursor.us.toString()}::bigint, ${cursor.id}::uuid)`;
  const rows = await db
    .select(columns)
    .from(events)
    .where(
      and(eq(events.clientId, clientId), gte(events.createdAt, new Date(fromMs)), upTo, typeFilter(types)),
    )
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(limit);
  return rows.map(toRow);
}

export async function eventOfClient(db: Db, clientId: string, id: string): Promise<StreamEventRow | null> {
  const [row] = await db
    .select(columns)
    .from(events)
    .where(and(eq(events.clientId, clientId), eq(events.id, id)));
  return row ? toRow(row) : null;
}

/** The database's current time in microseconds (created_at comes from it, not the service's clock). */
export async function databaseNowUs(db: Db): Promise<bigint> {
  const [row] = rowsOf<{ us: string }>(
    await db.execute(sql`select (extract(epoch from now()) * 1000000)::bigint::text as us`),
  );
  return BigInt(row!.us);
}
