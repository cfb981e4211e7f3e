/** Queries of the refunds feature. Every client-facing query filters by client_id. */
import { and, asc, count, desc, eq, isNotNull, lte, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { type RefundReconciliationState, type RefundStatus, refunds } from '../../db/schema/index';
import type { PageParams } from '../../shared/pagination';
import type { RefundRow } from './refunds.machine';

export async function findRefundForClient(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<RefundRow | null> {
  const [row] = await db
    .select()
    .from(refunds)
    .where(and(eq(refunds.id, id), eq(refunds.clientId, clientId)));
  return row ?? null;
}

export async function findRefundById(db: DbOrTx, id: string): Promise<RefundRow | null> {
  const [row] = await db.select().from(refunds).where(eq(refunds.id, id));
  return row ?? null;
}

/** The refund row locked for this transaction (cancel against the submit job's compare-and-set). */
export async function lockRefund(db: DbOrTx, clientId: string, id: string): Promise<RefundRow | null> {
  const [row] = await db
    .select()
    .from(refunds)
    .where(and(eq(refunds.id, id), eq(refunds.clientId, clientId)))
    .for('update');
  return row ?? null;
}

export async function insertRefund(db: DbOrTx, values: typeof refunds.$inferInsert): Promise<RefundRow> {
  const [row] = await db.insert(refunds).values(values).returning();
  return row!;
}

/**
 * The submit job's claim: `submitted_at` is set only while the refund is pending and was never
 * submitted, so a cancel (which locks the row and checks `submitted_at`) and the network call
 * never both happen. Returns the row when this call claimed it.
 */
export async function markSubmitted(db: DbOrTx, id: string, now: Date): Promise<RefundRow | null> {
  const [row] = await db
    .update(refunds)
    .set({ submittedAt: now, updatedAt: now })
    .where(and(eq(refunds.id, id), eq(refunds.status, 'pending'), sql`${refunds.submittedAt} is null`))
    .returning();
  return row ?? null;
}

export async function listTransactionRefunds(
  db: DbOrTx,
  clientId: string,
  transactionId: string,
): Promise<RefundRow[]> {
  return db
    .select()
    .from(refunds)
    .where(and(eq(refunds.transactionId, transactionId), eq(refunds.clientId, clientId)))
    .orderBy(asc(refunds.createdAt), asc(refunds.id));
}

export interface RefundFilters {
  status?: RefundStatus;
  transactionId?: string;
  projectId?: string;
  reconciliationState?: RefundReconciliationState;
  from?: string;
  to?: string;
}

/** A page of a client's refunds, newest first, and the filtered total: two statements whatever the page. */
export async function listRefunds(
  db: DbOrTx,
  clientId: string,
  f: RefundFilters,
  page: PageParams,
): Promise<{ rows: RefundRow[]; total: number }> {
  const conds: SQL[] = [eq(refunds.clientId, clientId)];
  if (f.status) conds.push(eq(refunds.status, f.status));
  if (f.transactionId) conds.push(eq(refunds.transactionId, f.transactionId));
  if (f.projectId) conds.push(eq(refunds.projectId, f.projectId));
  if (f.reconciliationState) conds.push(eq(refunds.reconciliationState, f.reconciliationState));
  if (f.from) conds.push(sql`${refunds.createdAt} >= ${f.from}::timestamptz`);
  if (f.to) conds.push(sql`${refunds.createdAt} < ${f.to}::timestamptz`);
  const where = and(...conds);
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(refunds)
      .where(where)
      .orderBy(desc(refunds.createdAt), desc(refunds.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(refunds).where(where),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/** Processing refunds due for a read at the network (the reconciliation sweep). */
export async function findDueProcessing(db: DbOrTx, now: Date, limit: number): Promise<RefundRow[]> {
  return db
    .select()
    .from(refunds)
    .where(
      and(
        eq(refunds.status, 'processing'),
        isNotNull(refunds.networkCheckAt),
        lte(refunds.networkCheckAt, now),
      ),
    )
    .orderBy(asc(refunds.networkCheckAt))
    .limit(limit);
}

/**
 * The sweep's next read of a processing refund: `at`, or `heldAt` (the slow cadence) when it is
 * held for manual review, as the row says at the time of the write.
 */
export async function scheduleNextCheck(db: DbOrTx, r: RefundRow, at: Date, heldAt: Date): Promise<void> {
  await db
    .update(refunds)
    .set({
      networkCheckAt: sql`case when ${refunds.reconciliationState} = 'manual_review_required'
        then ${heldAt.toISOString()}::timestamptz else ${at.toISOString()}::timestamptz end`,
      networkChecks: sql`${refunds.networkChecks} + 1`,
    })
    .where(and(eq(refunds.id, r.id), eq(refunds.status, 'processing')));
}
