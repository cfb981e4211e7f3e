/** Billing usage of wallet screening: screenings completed in the period (cached answers are not new screenings). */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { registerUsageSource } from '../billing/billing.usage';

registerUsageSource('wallet_screening', {
  priceKey: 'wallet_screening',
  description: 'Wallet screenings',
  count: async (db, clientId, from, to) =>
    Number(
      rowsOf<{ n: number | string }>(
        await db.execute(sql`select count(*)::int as n from wallet_screenings
          where client_id = ${clientId}::uuid and status = 'completed'
            and completed_at >= ${from.toISOString()}::timestamptz and completed_at < ${to.toISOString()}::timestamptz`),
      )[0]?.n ?? 0,
    ),
});
