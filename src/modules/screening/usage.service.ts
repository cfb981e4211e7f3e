/** Billing usage of wallet screening (billing-usage.service.ts counts it). */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';

/** Screenings of `clientId` completed in [from, to); cached answers are not new screenings. */
export async function countCompletedScreenings(
  db: DbOrTx,
  clientId: string,
  from: Date,
  to: Date,
): Promise<number> {
  const res = await db.execute(sql`select count(*)::int as n from wallet_screenings
    where client_id = ${clientId}::uuid and status = 'completed'
      and completed_at >= ${from.toISOString()}::timestamptz and completed_at < ${to.toISOString()}::timestamptz`);
  return Number(rowsOf<{ n: number | string }>(res)[0]?.n ?? 0);
}
