/**
 * Exact transaction totals from the trigger-maintained deltas (transaction_count_deltas): the
 * total of a client's list, unfiltered or filtered by status only, is a sum over a handful of rows
 * instead of a count over every transaction. Other filters still count the rows.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { rowsOf } from '../../db/client';
import { type TransactionStatus, transactionCountDeltas } from '../../db/schema/index';

export async function countedTotal(
  db: DbOrTx,
  clientId: string,
  status?: TransactionStatus,
): Promise<number> {
  const conds: SQL[] = [eq(transactionCountDeltas.clientId, clientId)];
  if (status) conds.push(eq(transactionCountDeltas.status, status));
  const [row] = await db
    .select({ n: sql<string>`coalesce(sum(${transactionCountDeltas.n}), 0)` })
    .from(transactionCountDeltas)
    .where(and(...conds));
  return Number(row?.n ?? 0);
}

/**
 * Folds the deltas of up to `limit` (client, status) pairs that have more than one row into one
 * row each (pairs summing to zero vanish). One statement: a concurrent reader sees either the old
 * rows or the sum; a concurrent compactor skips the rows this one deleted. Returns the pairs folded.
 */
export async function compactTransactionCounts(db: DbOrTx, limit = 200): Promise<number> {
  const res = await db.execute(sql`
    with hot as (
      select client_id, status from transaction_count_deltas
       group by client_id, status having count(*) > 1 limit ${limit}
    ), gone as (
      delete from transaction_count_deltas d using hot
       where d.client_id = hot.client_id and d.status = hot.status
      returning d.client_id, d.status, d.n
    ), folded as (
      insert into transaction_count_deltas (client_id, status, n)
      select client_id, status, sum(n) from gone group by client_id, status having sum(n) <> 0
      returning 1
    )
    select (select count(*) from hot)::int as pairs`);
  return rowsOf<{ pairs: number }>(res)[0]?.pairs ?? 0;
}
