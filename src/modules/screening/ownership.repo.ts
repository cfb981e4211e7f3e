/** Queries of wallet ownership requests. */
import { and, count, desc, eq, ilike, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { type OwnershipStatus, walletOwnershipRequests } from '../../db/schema/index';
import { containsPattern, type PageParams } from '../../shared/pagination';
import type { OwnershipRow } from './ownership.machine';

const t = walletOwnershipRequests;

export async function findOwnership(db: DbOrTx, clientId: string | null, id: string, forUpdate = false) {
  const where = clientId ? and(eq(t.id, id), eq(t.clientId, clientId)) : eq(t.id, id);
  const q = db.select().from(t).where(where);
  const [row] = forUpdate ? await q.for('update') : await q;
  return (row as OwnershipRow | undefined) ?? null;
}

export async function findOwnershipByToken(db: DbOrTx, token: string, forUpdate = false) {
  const q = db.select().from(t).where(eq(t.token, token));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

export async function insertOwnership(tx: DbOrTx, values: typeof t.$inferInsert) {
  const [row] = await tx.insert(t).values(values).returning();
  return row!;
}

export async function updateOwnership(tx: DbOrTx, id: string, set: Partial<typeof t.$inferInsert>) {
  const [row] = await tx.update(t).set(set).where(eq(t.id, id)).returning();
  return row!;
}

export interface OwnershipFilters {
  status?: OwnershipStatus;
  chain?: string;
  userId?: string;
  businessCustomerId?: string;
  q?: string;
}

export async function listOwnership(db: DbOrTx, clientId: string, f: OwnershipFilters, p: PageParams) {
  const conds: (SQL | undefined)[] = [eq(t.clientId, clientId)];
  if (f.status) conds.push(eq(t.status, f.status));
  if (f.chain) conds.push(eq(t.chain, f.chain));
  if (f.userId) conds.push(eq(t.userId, f.userId));
  if (f.businessCustomerId) conds.push(eq(t.businessCustomerId, f.businessCustomerId));
  if (f.q) conds.push(ilike(t.address, containsPattern(f.q)));
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(t)
      .where(where)
      .orderBy(desc(t.createdAt), desc(t.id))
      .limit(p.pageSize)
      .offset(p.offset),
    db.select({ n: count() }).from(t).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
