/** Queries of the bulk payment-link feature. Every client-facing query filters by client_id. */
import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { bulkPaymentJobs, bulkPaymentRows } from '../../db/schema/index';
import type { PageParams } from '../../shared/pagination';
import type { JobStatus, RowStatus } from './bulk.machine';

export type JobRow = typeof bulkPaymentJobs.$inferSelect;
export type BulkRow = typeof bulkPaymentRows.$inferSelect;

export interface JobCounts {
  total: number;
  valid: number;
  invalid: number;
  pending: number;
  created: number;
  failed: number;
  canceled: number;
}

const emptyCounts = (): JobCounts => ({
  total: 0,
  valid: 0,
  invalid: 0,
  pending: 0,
  created: 0,
  failed: 0,
  canceled: 0,
});

export async function findJob(db: DbOrTx, clientId: string, id: string): Promise<JobRow | null> {
  const [row] = await db
    .select()
    .from(bulkPaymentJobs)
    .where(and(eq(bulkPaymentJobs.id, id), eq(bulkPaymentJobs.clientId, clientId)));
  return row ?? null;
}

export async function findJobById(db: DbOrTx, id: string): Promise<JobRow | null> {
  const [row] = await db.select().from(bulkPaymentJobs).where(eq(bulkPaymentJobs.id, id));
  return row ?? null;
}

/** Row counts per status for each job, in one grouped query. */
export async function countRows(db: DbOrTx, jobIds: string[]): Promise<Map<string, JobCounts>> {
  const out = new Map<string, JobCounts>(jobIds.map((id) => [id, emptyCounts()]));
  if (jobIds.length === 0) return out;
  const rows = await db
    .select({ bulkId: bulkPaymentRows.bulkId, status: bulkPaymentRows.status, n: count() })
    .from(bulkPaymentRows)
    .where(inArray(bulkPaymentRows.bulkId, jobIds))
    .groupBy(bulkPaymentRows.bulkId, bulkPaymentRows.status);
  for (const r of rows) {
    const c = out.get(r.bulkId)!;
    c[r.status] = Number(r.n);
    c.total += Number(r.n);
  }
  return out;
}

export async function listJobs(
  db: DbOrTx,
  clientId: string,
  status: JobStatus | undefined,
  page: PageParams,
): Promise<{ rows: JobRow[]; total: number }> {
  const where = and(
    eq(bulkPaymentJobs.clientId, clientId),
    status ? eq(bulkPaymentJobs.status, status) : undefined,
  );
  const [rows, [t]] = await Promise.all([
    db
      .select()
      .from(bulkPaymentJobs)
      .where(where)
      .orderBy(desc(bulkPaymentJobs.createdAt), desc(bulkPaymentJobs.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(bulkPaymentJobs).where(where),
  ]);
  return { rows, total: Number(t?.n ?? 0) };
}

export interface RowWithLink extends BulkRow {
  checkoutToken: string | null;
}

function rowFilter(bulkId: string, clientId: string, statuses: readonly RowStatus[] | undefined): SQL {
  return and(
    eq(bulkPaymentRows.bulkId, bulkId),
    eq(bulkPaymentRows.clientId, clientId),
    statuses && statuses.length > 0 ? inArray(bulkPaymentRows.status, [...statuses]) : undefined,
  )!;
}

/** Rows in ascending row_number with their link's checkout token (one joined query). */
export async function listRows(
  db: DbOrTx,
  clientId: string,
  bulkId: string,
  statuses: readonly RowStatus[] | undefined,
  page: PageParams | null,
): Promise<{ rows: RowWithLink[]; total: number }> {
  const where = rowFilter(bulkId, clientId, statuses);
  const q = db
    .select({
      row: bulkPaymentRows,
      checkoutToken: sql<
        string | null
      >`(select t.checkout_token from transactions t where t.id = ${bulkPaymentRows.transactionId})`,
    })
    .from(bulkPaymentRows)
    .where(where)
    .orderBy(asc(bulkPaymentRows.rowNumber));
  const [rows, [t]] = await Promise.all([
    page ? q.limit(page.pageSize).offset(page.offset) : q,
    db.select({ n: count() }).from(bulkPaymentRows).where(where),
  ]);
  return { rows: rows.map((r) => ({ ...r.row, checkoutToken: r.checkoutToken })), total: Number(t?.n ?? 0) };
}

export async function allRows(db: DbOrTx, bulkId: string): Promise<BulkRow[]> {
  return db
    .select()
    .from(bulkPaymentRows)
    .where(eq(bulkPaymentRows.bulkId, bulkId))
    .orderBy(asc(bulkPaymentRows.rowNumber));
}

/** Moves every row of a job in `from` to `to` (one statement). */
export async function moveRows(
  tx: DbOrTx,
  bulkId: string,
  from: readonly RowStatus[],
  to: RowStatus,
  at: Date,
): Promise<number> {
  const res = await tx
    .update(bulkPaymentRows)
    .set({ status: to, updatedAt: at, leaseUntil: null })
    .where(and(eq(bulkPaymentRows.bulkId, bulkId), inArray(bulkPaymentRows.status, [...from])))
    .returning({ n: bulkPaymentRows.rowNumber });
  return res.length;
}

/** Locks due jobs of one status (FOR UPDATE SKIP LOCKED). */
export async function lockDueJobs(tx: DbOrTx, where: SQL, order: SQL, limit: number): Promise<JobRow[]> {
  return tx
    .select()
    .from(bulkPaymentJobs)
    .where(where)
    .orderBy(order)
    .limit(limit)
    .for('update', { skipLocked: true });
}

/**
 * Leases up to `limit` pending rows of processing jobs (FOR UPDATE SKIP LOCKED): lease_until moves
 * forward and attempts counts the try, so a crashed worker's rows are taken again once the lease lapses.
 */
export async function leasePendingRows(
  tx: DbOrTx,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<BulkRow[]> {
  const res = await tx.execute(sql`
    update bulk_payment_rows r
       set lease_until = ${leaseUntil.toISOString()}::timestamptz, attempts = r.attempts + 1,
           updated_at = ${now.toISOString()}::timestamptz
      from (select r2.bulk_id, r2.row_number
              from bulk_payment_rows r2
              join bulk_payment_jobs j on j.id = r2.bulk_id
             where r2.status = 'pending' and j.status = 'processing'
               and (r2.lease_until is null or r2.lease_until <= ${now.toISOString()}::timestamptz)
             order by j.started_at, r2.bulk_id, r2.row_number
             limit ${limit}
             for update of r2 skip locked) c
     where r.bulk_id = c.bulk_id and r.row_number = c.row_number
    returning r.bulk_id, r.row_number, r.attempts`);
  const keys = rowsOf<{ bulk_id: string; row_number: number }>(res);
  if (keys.length === 0) return [];
  return tx
    .select()
    .from(bulkPaymentRows)
    .where(
      sql`(${bulkPaymentRows.bulkId}, ${bulkPaymentRows.rowNumber}) in
          (select k.bulk_id, k.row_number
             from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as k(bulk_id uuid, row_number int))`,
    )
    .orderBy(asc(bulkPaymentRows.bulkId), asc(bulkPaymentRows.rowNumber));
}

/** Processing jobs with no pending row left (locked, SKIP LOCKED). */
export async function lockDrainedJobs(tx: DbOrTx, limit: number, ids?: string[]): Promise<JobRow[]> {
  return lockDueJobs(
    tx,
    and(
      eq(bulkPaymentJobs.status, 'processing'),
      ids ? inArray(bulkPaymentJobs.id, ids) : undefined,
      sql`not exists (select 1 from bulk_payment_rows r where r.bulk_id = ${bulkPaymentJobs.id} and r.status = 'pending')`,
    )!,
    asc(bulkPaymentJobs.updatedAt),
    limit,
  );
}

/** Pending intents of a job's created links (the rows' transactions still pending). */
export async function pendingLinksOf(db: DbOrTx, bulkId: string): Promise<string[]> {
  const res = await db.execute(sql`
    select t.id from bulk_payment_rows r join transactions t on t.id = r.transaction_id
     where r.bulk_id = ${bulkId}::uuid and t.status = 'pending'`);
  return rowsOf<{ id: string }>(res).map((r) => r.id);
}
