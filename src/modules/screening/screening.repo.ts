/** Queries of screened wallets and their screenings. */
import { and, count, desc, eq, ilike, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { screeningWallets, type WalletOwnershipStatus, walletScreenings } from '../../db/schema/index';
import { containsPattern, type PageParams } from '../../shared/pagination';

export type WalletRow = typeof screeningWallets.$inferSelect;
export type ScreeningRow = typeof walletScreenings.$inferSelect;

export async function findWallet(db: DbOrTx, clientId: string, id: string, forUpdate = false) {
  const q = db
    .select()
    .from(screeningWallets)
    .where(and(eq(screeningWallets.id, id), eq(screeningWallets.clientId, clientId)));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

export async function findWalletByAddress(db: DbOrTx, clientId: string, chain: string, normalized: string) {
  const [row] = await db
    .select()
    .from(screeningWallets)
    .where(
      and(
        eq(screeningWallets.clientId, clientId),
        eq(screeningWallets.chain, chain),
        eq(screeningWallets.normalizedAddress, normalized),
      ),
    );
  return row ?? null;
}

/** Inserts the wallet or returns the existing one (row-locked), in the caller's transaction. */
export async function upsertWallet(
  tx: DbOrTx,
  values: typeof screeningWallets.$inferInsert,
): Promise<WalletRow> {
  await tx.insert(screeningWallets).values(values).onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(screeningWallets)
    .where(
      and(
        eq(screeningWallets.clientId, values.clientId),
        eq(screeningWallets.chain, values.chain),
        eq(screeningWallets.normalizedAddress, values.normalizedAddress),
      ),
    )
    .for('update');
  return row!;
}

export async function updateWallet(
  tx: DbOrTx,
  id: string,
  set: Partial<typeof screeningWallets.$inferInsert>,
) {
  const [row] = await tx.update(screeningWallets).set(set).where(eq(screeningWallets.id, id)).returning();
  return row!;
}

export async function insertScreening(tx: DbOrTx, values: typeof walletScreenings.$inferInsert) {
  const [row] = await tx.insert(walletScreenings).values(values).returning();
  return row!;
}

export async function findScreening(db: DbOrTx, clientId: string | null, id: string, forUpdate = false) {
  const where = clientId
    ? and(eq(walletScreenings.id, id), eq(walletScreenings.clientId, clientId))
    : eq(walletScreenings.id, id);
  const q = db.select().from(walletScreenings).where(where);
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

export async function updateScreening(
  tx: DbOrTx,
  id: string,
  set: Partial<typeof walletScreenings.$inferInsert>,
) {
  const [row] = await tx.update(walletScreenings).set(set).where(eq(walletScreenings.id, id)).returning();
  return row!;
}

/** The newest completed screening of the wallet completed at or after `since` (the cache). */
export async function freshCompletedScreening(db: DbOrTx, walletId: string, since: Date) {
  const [row] = await db
    .select()
    .from(walletScreenings)
    .where(and(eq(walletScreenings.walletId, walletId), eq(walletScreenings.status, 'completed')))
    .orderBy(desc(walletScreenings.completedAt))
    .limit(1);
  return row?.completedAt && row.completedAt >= since ? row : null;
}

export function latestScreenings(db: DbOrTx, walletId: string, limit = 20) {
  return db
    .select()
    .from(walletScreenings)
    .where(eq(walletScreenings.walletId, walletId))
    .orderBy(desc(walletScreenings.createdAt), desc(walletScreenings.id))
    .limit(limit);
}

export interface WalletFilters {
  q?: string;
  chain?: string;
  riskLevel?: string;
  sanctionsHit?: boolean;
  ownershipStatus?: WalletOwnershipStatus;
  monitored?: boolean;
  userId?: string;
  businessCustomerId?: string;
}

export async function listWallets(db: DbOrTx, clientId: string, f: WalletFilters, p: PageParams) {
  const w = screeningWallets;
  const conds: (SQL | undefined)[] = [eq(w.clientId, clientId)];
  if (f.q) {
    const pattern = containsPattern(f.q);
    conds.push(or(ilike(w.address, pattern), ilike(w.label, pattern)));
  }
  if (f.chain) conds.push(eq(w.chain, f.chain));
  if (f.riskLevel) conds.push(eq(w.riskLevel, f.riskLevel));
  if (f.sanctionsHit !== undefined) conds.push(eq(w.sanctionsHit, f.sanctionsHit));
  if (f.ownershipStatus) conds.push(eq(w.ownershipStatus, f.ownershipStatus));
  if (f.monitored !== undefined) conds.push(eq(w.monitored, f.monitored));
  if (f.userId) conds.push(eq(w.userId, f.userId));
  if (f.businessCustomerId) conds.push(eq(w.businessCustomerId, f.businessCustomerId));
  const where = and(...conds);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(w)
      .where(where)
      .orderBy(desc(w.createdAt), desc(w.id))
      .limit(p.pageSize)
      .offset(p.offset),
    db.select({ n: count() }).from(w).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
