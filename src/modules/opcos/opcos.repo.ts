/** Queries of the opcos feature. Every client-facing query filters by client_id. */
import { and, count, desc, eq, lte, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { opcos, projects } from '../../db/schema/index';
import { type PageParams, prefixPattern } from '../../shared/pagination';
import type { OpcoStatus } from './opcos.machine';

export type OpcoRow = typeof opcos.$inferSelect;
export type NewOpco = typeof opcos.$inferInsert;
export type OpcoChanges = Partial<Omit<NewOpco, 'id' | 'clientId' | 'status' | 'createdAt'>>;

export async function insertOpco(db: DbOrTx, values: NewOpco): Promise<OpcoRow> {
  const [row] = await db.insert(opcos).values(values).returning();
  return row!;
}

export async function findClientOpco(
  db: DbOrTx,
  clientId: string,
  opcoId: string,
): Promise<OpcoRow | undefined> {
  const [row] = await db
    .select()
    .from(opcos)
    .where(and(eq(opcos.id, opcoId), eq(opcos.clientId, clientId)));
  return row;
}

/** Unscoped lookup: staff actions, and telling "another client's opco" apart when binding. */
export async function findOpcoById(db: DbOrTx, opcoId: string): Promise<OpcoRow | undefined> {
  const [row] = await db.select().from(opcos).where(eq(opcos.id, opcoId));
  return row;
}

/** Same, locking the row against a concurrent status change until the transaction ends. */
export async function findOpcoForShare(db: DbOrTx, opcoId: string): Promise<OpcoRow | undefined> {
  const [row] = await db.select().from(opcos).where(eq(opcos.id, opcoId)).for('share');
  return row;
}

export async function listClientOpcos(
  db: DbOrTx,
  clientId: string,
  page: PageParams,
  status?: OpcoStatus,
  q?: string,
): Promise<{ rows: OpcoRow[]; total: number }> {
  const where: SQL[] = [eq(opcos.clientId, clientId)];
  if (status) where.push(eq(opcos.status, status));
  // opcos_client_name_search_idx
  if (q) where.push(sql`lower(${opcos.name}) like ${prefixPattern(q)}`);
  const cond = and(...where);
  return pageOfOpcos(db, cond, page);
}

async function pageOfOpcos(
  db: DbOrTx,
  cond: SQL | undefined,
  page: PageParams,
): Promise<{ rows: OpcoRow[]; total: number }> {
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(opcos)
      .where(cond)
      .orderBy(desc(opcos.createdAt), desc(opcos.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(opcos).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/** Staff view: every client's opcos, optionally one status (e.g. the review queue). */
export async function listAllOpcos(
  db: DbOrTx,
  page: PageParams,
  status?: OpcoStatus,
): Promise<{ rows: OpcoRow[]; total: number }> {
  const cond = status ? eq(opcos.status, status) : undefined;
  return pageOfOpcos(db, cond, page);
}

/** Edits a draft; zero rows when the opco left draft meanwhile. */
export async function updateDraftOpco(
  db: DbOrTx,
  clientId: string,
  opcoId: string,
  changes: OpcoChanges,
): Promise<OpcoRow | undefined> {
  const [row] = await db
    .update(opcos)
    .set(changes)
    .where(and(eq(opcos.id, opcoId), eq(opcos.clientId, clientId), eq(opcos.status, 'draft')))
    .returning();
  return row;
}

export async function deleteDraftOpco(db: DbOrTx, clientId: string, opcoId: string): Promise<boolean> {
  const rows = await db
    .delete(opcos)
    .where(and(eq(opcos.id, opcoId), eq(opcos.clientId, clientId), eq(opcos.status, 'draft')))
    .returning({ id: opcos.id });
  return rows.length > 0;
}

export async function countProjectsBoundTo(db: DbOrTx, opcoId: string): Promise<number> {
  const [r] = await db.select({ n: count() }).from(projects).where(eq(projects.opcoId, opcoId));
  return Number(r?.n ?? 0);
}

/**
 * Claims awaiting_approval opcos whose next read of a network's review has come, skipping rows
 * another node holds, and pushes that time to `leaseUntil` so a crashed claimer's rows come back
 * later. (The sandbox activation is a timer: opco-review.service.ts.)
 */
export async function claimDueActivations(
  db: DbOrTx,
  now: Date,
  limit: number,
  leaseUntil: Date,
): Promise<OpcoRow[]> {
  const rows = await db
    .select()
    .from(opcos)
    .where(and(eq(opcos.status, 'awaiting_approval'), lte(opcos.networkCheckAt, now)))
    .orderBy(opcos.networkCheckAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  if (rows.length === 0) return [];
  await db
    .update(opcos)
    .set({ networkCheckAt: leaseUntil })
    .where(
      sql`${opcos.id} in (${sql.join(
        rows.map((r) => sql`${r.id}::uuid`),
        sql`, `,
      )})`,
    );
  return rows;
}
